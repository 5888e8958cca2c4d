package pipeline

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/projection"
)

// link is a session's side of its transformer chain: one per live session
// with a chain, started whenever the session comes live in this daemon
// (Pipeline.Live, whatever woke it) or gets its chain, and following its
// events from a known seq, so none slips past the chain. It runs the
// agent→client chain of each permission request (held from the clients
// until the chain lets it through), the response chain of each agent
// update (held from the clients by the session's gate until decided:
// linkgate.go) and sends the lifecycle events. Its subscription does not
// keep the session live: it ends when the session passivates, and the
// next wake starts a new one (the chain outlives both).
type link struct {
	pipeline *Pipeline
	sessions *sessions.Client
	session  string
	from     int64 // the first seq to watch; 0: the live stream

	sub *actor.PID
	// The response chain: the agent updates of the events seen, each
	// through the chain in seq order, one at a time (current). With a gate
	// (gated) the session's clients see each only once decided.
	gated   bool
	view    *projection.View // the link's own fold, to build the updates clients would see
	shown   map[string]bool  // the tool calls shown with tool_call
	seen    int64            // the last event seen
	visible int64            // the last event seen but update.transformed (which shows nothing)
	current *pendingUpdate
	updates []pendingUpdate // waiting behind current, at most maxUpdateQueue

	chains    map[int64]func(Done)
	key       int64
	completed map[string]bool // tool calls whose tool.completed was sent
	edited    map[string]bool // paths whose file.edited was sent
	idle      *time.Timer     // session.idle after IdleAfter of quiet
	quiet     int             // numbers the idle timer's arming
}

// idleTick is the idle timer's message.
type idleTick struct{ n int }

// AskNow tells a connection that a held permission request was let
// through by the chain: its clients are asked now.
type AskNow struct{ Session string }

func linkProps(p *Pipeline, s *sessions.Client, session string, from int64) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &link{pipeline: p, sessions: s, session: session, from: from, seen: max(from-1, 0), visible: max(from-1, 0),
			chains: map[int64]func(Done){}, completed: map[string]bool{},
			edited: map[string]bool{}, view: &projection.View{SessionID: session, Deltas: true}, shown: map[string]bool{}}
	})
}

func (l *link) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		l.gated = l.pipeline.gated(l.session)
		l.sessions.Async(ctx).Follow(l.session, l.from, func(s sessions.Subscribed, err error) {
			if err != nil {
				ctx.Stop(ctx.Self())
				return
			}
			l.sub = s.Subscription
			l.pipeline.linkSubscribed(l.session, s.ReplayTo)
			if l.from <= 0 {
				// Everything before the live stream was shown before the gate.
				l.seen = max(l.seen, s.ReplayTo)
			}
			l.publish(ctx)
		})
	case *sessions.Events:
		if !l.gated {
			l.gated = l.pipeline.gated(l.session)
		}
		watch := l.gated || l.pipeline.Chain(l.session, "response:session/update") != nil
		for _, e := range m.Events {
			if watch {
				l.observe(ctx, e)
			}
			l.seen = max(l.seen, e.Seq)
			if e.Kind != event.UpdateTransformed {
				l.visible = e.Seq
			}
			l.onEvent(ctx, e)
		}
		l.pump(ctx)
		l.armIdle(ctx)
	case *gateOpened:
		// A transformer gating the session joined or came back: what the
		// link has seen goes out, what follows waits for the chain.
		l.gated = true
		l.publish(ctx)
	case *idleTick:
		if m.n == l.quiet {
			l.lifecycle(ctx, "session.idle", map[string]any{})
		}
	case *sessions.Closed:
		l.lifecycle(ctx, "session.closed", map[string]any{})
		ctx.Stop(ctx.Self())
	case *Done:
		if then := l.chains[m.Key]; then != nil {
			delete(l.chains, m.Key)
			then(*m)
		}
	case *actor.Stopping:
		if l.idle != nil {
			l.idle.Stop()
		}
		if l.sub != nil {
			l.sessions.Unsubscribe(l.session, l.sub)
		}
	case *actor.Stopped:
		// Once stopped, so that the name is free for the link that takes
		// over when the session came live again meanwhile.
		if l.pipeline.dropLink(ctx.ActorSystem(), l.sessions, l.session) {
			l.open(ctx.ActorSystem().Root) // fail-open: what waited goes out as recorded
		}
	case *actor.Restarting, *actor.Terminated:
	default:
		actorlog.Unhandled(actorlog.For(ctx, "chain_link", l.session), ctx)
	}
}

func (l *link) lifecycle(ctx actor.Context, ev string, payload any) {
	l.pipeline.Lifecycle(ctx.ActorSystem().Root, l.session, ev, payload, "")
}

func (l *link) onEvent(ctx actor.Context, e event.Event) {
	switch e.Kind {
	case event.ToolPermissionRequested:
		var p event.PermissionRequestedPayload
		if e.Decode(&p) == nil {
			l.permission(ctx, p)
		}
	case event.ToolPermissionResolved:
		var p event.PermissionResolvedPayload
		if e.Decode(&p) == nil {
			l.lifecycle(ctx, "permission.replied", map[string]any{"toolCallId": p.ToolCallID, "outcome": p.Outcome,
				"sourceWasTransformer": strings.HasPrefix(p.ResolvedBy, "transformer:")})
		}
	case event.ToolStarted:
		var p event.ToolStartedPayload
		if e.Decode(&p) == nil && p.Category == "edit" {
			var args struct {
				Path string `json:"path"`
			}
			if json.Unmarshal([]byte(p.Arguments), &args) == nil && args.Path != "" && !l.edited[args.Path] {
				l.edited[args.Path] = true
				l.lifecycle(ctx, "file.edited", map[string]any{"path": args.Path, "toolCallId": p.ToolCallID})
			}
		}
	case event.CompactionStarted, event.CompactionEnded:
		var p event.CompactionPayload
		if e.Decode(&p) == nil {
			phase := "started"
			switch {
			case e.Kind == event.CompactionStarted:
			case p.Error != "" || p.Aborted:
				phase = "failed"
			default:
				phase = "swapped"
			}
			l.lifecycle(ctx, "compaction", map[string]any{"phase": phase, "reason": p.Reason})
		}
	case event.ToolCompleted:
		var p event.ToolCompletedPayload
		if e.Decode(&p) == nil && !l.completed[p.ToolCallID] {
			l.completed[p.ToolCallID] = true
			status := "completed"
			if p.Status != "success" {
				status = "failed"
			}
			l.lifecycle(ctx, "tool.completed", map[string]any{"toolCallId": p.ToolCallID, "status": status})
		}
	}
}

// armIdle (re)starts the quiet period after which session.idle fires
// once.
func (l *link) armIdle(ctx actor.Context) {
	if l.idle != nil {
		l.idle.Stop()
	}
	l.quiet++
	root, self, msg := ctx.ActorSystem().Root, ctx.Self(), &idleTick{n: l.quiet}
	l.idle = time.AfterFunc(l.pipeline.idleAfter(), func() { root.Send(self, msg) })
}

// permission runs the agent→client chain of a permission request. stop
// answers it (by default a denial) without asking a client; continue lets
// the clients be asked.
func (l *link) permission(ctx actor.Context, p event.PermissionRequestedPayload) {
	names := l.pipeline.Chain(l.session, "request:session/request_permission")
	if names == nil {
		return
	}
	opts := make([]permissionOption, len(p.Options))
	for i, o := range p.Options {
		opts[i] = permissionOption{OptionID: o.OptionID, Name: o.Name, Kind: o.Kind}
	}
	env, _ := json.Marshal(map[string]any{"sessionId": l.session, "options": opts,
		"toolCall": map[string]any{"toolCallId": p.ToolCallID, "title": p.Name, "rawInput": json.RawMessage(orEmpty(p.Arguments))}})
	l.key++
	s := Spec{Pipeline: l.pipeline, Session: l.session, Method: "session/request_permission",
		Direction: "agent→client", Envelope: env, Names: names, Key: l.key}
	l.chains[s.Key] = func(d Done) {
		if d.Err != nil || d.Action != "stop" {
			l.pipeline.released.add(l.session, p.ToolCallID)
			for _, c := range l.pipeline.Watching(l.session) {
				ctx.Send(c, &AskNow{Session: l.session})
			}
			return
		}
		l.decide(ctx, p, d.Envelope)
	}
	ctx.SpawnPrefix(ChainProps(s), "chain")
}

// decide records a transformer's short-circuit: its selected option, or
// by default a denial (cancelled).
func (l *link) decide(ctx actor.Context, p event.PermissionRequestedPayload, payload json.RawMessage) {
	d := sessions.Decision{ToolCallID: p.ToolCallID, By: "transformer:" + strings.Join(l.pipeline.ChainOf(l.session), ","),
		OptionID: "reject_once", Reason: "denied by a transformer"}
	var ans permissionAnswer
	if json.Unmarshal(payload, &ans) == nil && ans.Outcome.Outcome == "selected" {
		if kind, ok := optionKind(p.Options, ans.Outcome.OptionID); ok {
			d.OptionID, d.Reason = ans.Outcome.OptionID, "chosen by a transformer"
			d.Allow, d.Always = strings.HasPrefix(kind, "allow"), kind == "allow_always"
		}
	}
	l.sessions.Async(ctx).Decide(l.session, d, func(err error) {
		if err != nil {
			actorlog.For(ctx, "chain_link", l.session).Debug("transformer's permission answer not taken", "error", err)
		}
	})
}

// permissionOption is an option of the session/request_permission
// envelope the chain gets, as ACP sends it to a client.
type permissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// permissionAnswer is a transformer's stop payload: a client's answer to
// session/request_permission.
type permissionAnswer struct {
	Outcome struct {
		Outcome  string `json:"outcome"` // selected | cancelled
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}

func optionKind(opts []event.PermissionOption, id string) (string, bool) {
	for _, o := range opts {
		if o.OptionID == id {
			return o.Kind, true
		}
	}
	return "", false
}

func orEmpty(s string) string {
	if s == "" || !json.Valid([]byte(s)) {
		return "{}"
	}
	return s
}
