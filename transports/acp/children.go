package acp

import (
	"encoding/json"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/workdir"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// Child sessions: a transformer's workers. A child is an ordinary session
// made with the parent's cwd (unless one is given) and the title seed;
// its session.created records the parent as child_of (not as a fork's
// parent_session_id, which would inherit the parent's history).

// maxAwait caps hydra-acp/child_session/await's timeoutMs.
const maxAwait = 30 * time.Minute

type spawnParams struct {
	AgentID         string     `json:"agentId"`
	Cwd             string     `json:"cwd"`
	ParentSessionID string     `json:"parentSessionId"`
	Interactive     *bool      `json:"interactive"`
	Meta            metaParams `json:"_meta"`
}

func (c *conn) childSpawn(ctx actor.Context, id, params json.RawMessage) {
	var p spawnParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	settings, ok := c.agentSettings(ctx, id, c.cfg.newSettings(), p.AgentID, p.Meta.Hydra.AgentArgs)
	if !ok {
		return
	}
	// A transformer's worker is not a person's session unless it says so:
	// kept out of default listings, as hydra's children are.
	interactive := lo.FromPtr(p.Interactive)
	create := func(cwd string) {
		created := event.CreatedPayload{Cwd: cwd, Title: p.Meta.Hydra.Title, Settings: settings,
			OriginTransport: c.cfg.Transport, OriginClient: c.peer.Name, ChildOf: p.ParentSessionID, Interactive: &interactive}
		sid := sessions.NewID()
		c.async(ctx).Create(sid, created, func(err error) {
			if err != nil {
				c.answerErr(ctx, id, sid, err)
				return
			}
			c.reply(ctx, id, map[string]any{"childSessionId": sid})
		})
	}
	if p.Cwd != "" {
		cwd, err := workdir.Cwd(p.Cwd)
		if err != nil {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+err.Error()))
			return
		}
		create(cwd)
		return
	}
	if p.ParentSessionID == "" {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: cwd or a live parentSessionId is required"))
		return
	}
	c.async(ctx).State(p.ParentSessionID, func(st sessions.State, err error) {
		if err != nil || st.Cwd == "" {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: no cwd, and parent "+p.ParentSessionID+" is not a live session"))
			return
		}
		create(st.Cwd)
	})
}

type awaitParams struct {
	ChildSessionID string `json:"childSessionId"`
	Until          string `json:"until"`
	TimeoutMs      int64  `json:"timeoutMs"`
}

// childAwait collects the child's updates until its turn completes (or
// it goes idle: its run ended with nothing queued) or the timeout.
func (c *conn) childAwait(ctx actor.Context, id, params json.RawMessage) {
	var p awaitParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	if p.ChildSessionID == "" {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: childSessionId is required"))
		return
	}
	switch p.Until {
	case "":
		p.Until = "turn_complete"
	case "turn_complete", "idle":
	default:
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, `invalid params: until must be "turn_complete" or "idle"`))
		return
	}
	timeout := time.Duration(p.TimeoutMs) * time.Millisecond
	if timeout <= 0 || timeout > maxAwait {
		timeout = maxAwait
	}
	c.spawnChild(ctx, "await", func(key int64) *actor.Props {
		return actor.PropsFromProducer(func() actor.Actor {
			return &awaiter{sessions: c.cfg.Sessions, session: p.ChildSessionID, until: p.Until, timeout: timeout, key: key,
				updates: acpupdate.NewMapper(p.ChildSessionID, c.cfg.Models)}
		})
	}, func(d pipeline.Done) {
		if d.Err != nil {
			c.fail(ctx, id, d.Err)
			return
		}
		c.reply(ctx, id, map[string]any{"entries": rawOrNil(d.Response)})
	})
}

func (c *conn) childClose(ctx actor.Context, id, params json.RawMessage) {
	var p struct {
		ChildSessionID string `json:"childSessionId"`
	}
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	if p.ChildSessionID == "" {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: childSessionId is required"))
		return
	}
	c.async(ctx).Kill(p.ChildSessionID, func(err error) {
		if err != nil {
			c.answerErr(ctx, id, p.ChildSessionID, err)
			return
		}
		c.reply(ctx, id, map[string]any{"ok": true})
	})
}

// awaiter watches one child session for child_session/await.
type awaiter struct {
	sessions *sessions.Client
	session  string
	until    string
	timeout  time.Duration
	key      int64

	sub   *actor.PID
	timer *time.Timer
	// updates shows the child's events as the session/updates its clients
	// see, the entries collected.
	updates *acpupdate.Mapper
	entries []map[string]any
	queued  int // prompts waiting, for idle
	done    bool
}

type awaitTimeout struct{}

func (w *awaiter) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		root, self := ctx.ActorSystem().Root, ctx.Self()
		w.timer = time.AfterFunc(w.timeout, func() { root.Send(self, &awaitTimeout{}) })
		w.sessions.Async(ctx).Subscribe(w.session, 0, true, func(s sessions.Subscribed, err error) {
			if err != nil {
				w.finish(ctx, SessionError(w.session, err))
				return
			}
			w.sub = s.Subscription
		})
	case *sessions.Events:
		for _, e := range m.Events {
			w.onEvent(ctx, e)
		}
	case *sessions.Closed, *awaitTimeout:
		w.finish(ctx, nil)
	case *actor.Stopping:
		if w.timer != nil {
			w.timer.Stop()
		}
		if w.sub != nil {
			w.sessions.Unsubscribe(w.session, w.sub)
		}
	case *actor.Stopped, *actor.Restarting, *actor.Terminated:
	default:
		actorlog.Unhandled(actorlog.For(ctx, "await", w.session), ctx)
	}
}

func (w *awaiter) onEvent(ctx actor.Context, e event.Event) {
	ch := w.updates.View.Apply(e)
	for _, u := range w.updates.Updates(ch) {
		w.entries = append(w.entries, map[string]any{"method": "session/update",
			"params": map[string]any{"sessionId": w.session, "update": u}})
	}
	switch ch.Payload.(type) {
	case *event.PromptQueuedPayload:
		w.queued++
	case *event.RunStartedPayload:
		if w.queued > 0 {
			w.queued--
		}
	case *event.RunEndedPayload:
		if w.until == "turn_complete" || w.queued == 0 {
			w.finish(ctx, nil)
		}
	}
}

func (w *awaiter) finish(ctx actor.Context, err *jsonrpc.Error) {
	if w.done {
		return
	}
	w.done = true
	d := pipeline.Done{Key: w.key, Err: err}
	if err == nil {
		if w.entries == nil {
			w.entries = []map[string]any{}
		}
		d.Response, _ = json.Marshal(w.entries)
	}
	ctx.Send(ctx.Parent(), &d)
	ctx.Stop(ctx.Self())
}
