package acp

import (
	"cmp"
	"encoding/json"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// Messages between connections and chain runs. A chain run never blocks:
// it asks a transformer's connection to call the transformer (peerCall)
// and gets the answer back as a message (peerAnswer).
type (
	peerCall struct {
		method string
		params any
		reply  *actor.PID
		step   int
	}
	peerAnswer struct {
		step int
		m    jsonrpc.Message
	}
	peerNotify struct {
		method string
		params any
	}
	discharge struct {
		token    string
		envelope json.RawMessage
	}
	keepAlive      struct{ token string }
	claimExpired   struct{ step, gen int }
	transformerMsg struct {
		Token     string          `json:"token"`
		Phase     string          `json:"phase"`
		Method    string          `json:"method"`
		Direction string          `json:"direction"`
		SessionID string          `json:"sessionId"`
		Envelope  json.RawMessage `json:"envelope"`
	}
	transformerAction struct {
		Action  string          `json:"action"`
		Payload json.RawMessage `json:"payload"`
	}
)

// chainDone is a chain run's outcome, for the connection that started it.
type chainDone struct {
	key      int64
	action   string          // continue | stop
	envelope json.RawMessage // continue: the envelope, maybe rewritten; stop: the synthesized reply (may be nil)
	response json.RawMessage // with a tail: the agent's answer
	err      *jsonrpc.Error
	// discharged: the stop is a processing claim's discharge, whose
	// envelope replaces the message (a response chain shows it).
	discharged bool
}

// chainSpec is one message's trip through a session's chain.
type chainSpec struct {
	pipeline  *Pipeline
	sessions  *sessions.Client
	session   string
	method    string
	phase     string // request (default) | response
	direction string
	envelope  json.RawMessage
	names     []string
	pos       int    // the first transformer to ask
	skip      string // the transformer that emitted the message: never asked again (loop safety)
	// tail, when set, delivers the message after the chain and answers the
	// agent's response (an emit with route chain or daemon).
	tail   bool
	client string // who the tail's prompt is recorded as sent by
	key    int64
}

// chainRun is one chain run, a child of the connection it answers.
type chainRun struct {
	chainSpec
	step    int // numbers calls, so a late answer is told apart
	token   string
	parked  bool
	gen     int // numbers the claim timer's arming
	timer   *time.Timer
	msgID   string // the tail's prompt
	sub     *actor.PID
	settled bool
	early   *discharge // a discharge that came before the processing answer
}

func chainProps(s chainSpec) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor { return &chainRun{chainSpec: s} })
}

func (r *chainRun) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		r.next(ctx)
	case *peerAnswer:
		if m.step == r.step && !r.parked && r.token != "" {
			r.answered(ctx, m.m)
		}
	case *discharge:
		switch {
		case m.token != r.token:
		case r.parked:
			r.finish(ctx, chainDone{action: "stop", envelope: m.envelope, discharged: true})
		default:
			r.early = m // the transformer discharged before answering processing
		}
	case *keepAlive:
		if m.token == r.token && r.parked {
			r.arm(ctx)
		}
	case *claimExpired:
		if m.step == r.step && m.gen == r.gen && r.token != "" {
			r.expired(ctx)
		}
	case *sessions.Events:
		r.onEvents(ctx, m.Events)
	case *sessions.Closed:
		if r.msgID != "" {
			r.finish(ctx, chainDone{err: jsonrpc.NewError(jsonrpc.CodeInternal, "session "+r.session+" closed: "+m.Reason)})
		}
	case *actor.Stopping:
		r.cleanup()
	case *actor.Stopped, *actor.Restarting, *actor.Terminated:
	default:
		actorlog.Unhandled(actorlog.For(ctx, "chain", r.session), ctx)
	}
}

// next asks the next transformer that intercepts the message, or settles
// the chain with the envelope as it now is.
func (r *chainRun) next(ctx actor.Context) {
	r.cleanupClaim()
	phase := cmp.Or(r.phase, "request")
	what := phase + ":" + r.method
	for ; r.pos < len(r.names); r.pos++ {
		name := r.names[r.pos]
		if name == r.skip {
			continue
		}
		conn, ok := r.pipeline.peer(name, what)
		if !ok {
			continue // not connected (restarting) or not interested: fail-open
		}
		r.step++
		r.token = newID("chain-")
		r.pipeline.park(r.token, ctx.Self())
		ctx.Send(conn, &peerCall{method: "hydra-acp/transformer/message", reply: ctx.Self(), step: r.step,
			params: transformerMsg{Token: r.token, Phase: phase, Method: r.method, Direction: r.direction,
				SessionID: r.session, Envelope: r.envelope}})
		r.arm(ctx)
		return
	}
	r.settle(ctx)
}

// arm (re)starts the claim timer: it bounds both the transformer's answer
// and a processing claim.
func (r *chainRun) arm(ctx actor.Context) {
	if r.timer != nil {
		r.timer.Stop()
	}
	r.gen++
	root, self, msg := ctx.ActorSystem().Root, ctx.Self(), &claimExpired{step: r.step, gen: r.gen}
	r.timer = time.AfterFunc(r.pipeline.claimTimeout(), func() { root.Send(self, msg) })
}

func (r *chainRun) answered(ctx actor.Context, m jsonrpc.Message) {
	var act transformerAction
	if m.Error != nil || json.Unmarshal(m.Result, &act) != nil {
		r.pos++ // a transformer that fails is passed over: fail-open
		r.next(ctx)
		return
	}
	switch act.Action {
	case "stop":
		r.finish(ctx, chainDone{action: "stop", envelope: act.Payload})
	case "processing":
		if r.early != nil && r.early.token == r.token {
			r.finish(ctx, chainDone{action: "stop", envelope: r.early.envelope, discharged: true})
			return
		}
		r.parked = true
		r.arm(ctx)
	default: // continue, the default
		if len(act.Payload) > 0 && !jsonrpc.IsNull(act.Payload) {
			r.envelope = act.Payload
		}
		r.pos++
		r.next(ctx)
	}
}

// expired: the transformer neither answered nor discharged in time. A
// parked claim is announced abandoned to every attached client; either way
// the chain goes on from the next transformer (fail-open).
func (r *chainRun) expired(ctx actor.Context) {
	if r.parked {
		n := &peerNotify{method: "hydra-acp/transformer/abandoned_request", params: map[string]any{
			"sessionId": r.session, "token": r.token, "transformerName": r.names[r.pos]}}
		for _, c := range r.pipeline.watching(r.session) {
			ctx.Send(c, n)
		}
	}
	r.pos++
	r.next(ctx)
}

// settle ends the chain with continue: the originator delivers the
// message, or, with a tail, the run delivers it itself.
func (r *chainRun) settle(ctx actor.Context) {
	if !r.tail {
		r.finish(ctx, chainDone{action: "continue", envelope: r.envelope})
		return
	}
	switch r.method {
	case "session/prompt":
		r.prompt(ctx)
	case "session/cancel":
		r.sessions.Async(ctx).Cancel(r.session, "cancelled by transformer "+r.client, func(_ sessions.CancelResult, err error) {
			if err != nil {
				r.finish(ctx, chainDone{err: SessionError(r.session, err)})
				return
			}
			r.finish(ctx, chainDone{action: "continue", envelope: r.envelope})
		})
	default:
		r.finish(ctx, chainDone{err: jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: emitting "+r.method+" is not supported")})
	}
}

// prompt queues the emitted prompt and answers once its run ended: the
// emit's promise is the end of the turn.
func (r *chainRun) prompt(ctx actor.Context) {
	var p promptParams
	if err := json.Unmarshal(r.envelope, &p); err != nil {
		r.finish(ctx, chainDone{err: jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: envelope: "+err.Error())})
		return
	}
	content, rerr := blocks(p.Prompt)
	if rerr != nil {
		r.finish(ctx, chainDone{err: rerr})
		return
	}
	async := r.sessions.Async(ctx)
	async.Subscribe(r.session, 0, true, func(s sessions.Subscribed, err error) {
		if err != nil {
			r.finish(ctx, chainDone{err: SessionError(r.session, err)})
			return
		}
		r.sub = s.Subscription
		r.msgID = newID("msg-")
		async.Prompt(r.session, sessions.PromptRequest{MessageID: r.msgID, Content: content, Client: r.client},
			func(_ sessions.PromptResult, err error) {
				if err != nil {
					r.finish(ctx, chainDone{err: SessionError(r.session, err)})
				}
			})
	})
}

func (r *chainRun) onEvents(ctx actor.Context, evs []event.Event) {
	if r.msgID == "" {
		return
	}
	for _, e := range evs {
		switch e.Kind {
		case event.RunEnded:
			var p event.RunEndedPayload
			if e.Decode(&p) == nil && p.RunID == r.msgID {
				res, _ := json.Marshal(promptResult{StopReason: stopReason(p.StopReason)})
				r.finish(ctx, chainDone{action: "continue", envelope: r.envelope, response: res})
				return
			}
		case event.PromptCancelled:
			var p event.PromptChangedPayload
			if e.Decode(&p) == nil && p.MessageID == r.msgID {
				res, _ := json.Marshal(promptResult{StopReason: "cancelled"})
				r.finish(ctx, chainDone{action: "continue", envelope: r.envelope, response: res})
				return
			}
		}
	}
}

func (r *chainRun) finish(ctx actor.Context, d chainDone) {
	if r.settled {
		return
	}
	r.settled = true
	d.key = r.key
	ctx.Send(ctx.Parent(), &d)
	ctx.Stop(ctx.Self())
}

func (r *chainRun) cleanupClaim() {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	if r.token != "" {
		r.pipeline.unpark(r.token)
		r.token = ""
	}
	r.parked, r.early = false, nil
}

func (r *chainRun) cleanup() {
	r.cleanupClaim()
	if r.sub != nil {
		r.sessions.Unsubscribe(r.session, r.sub)
		r.sub = nil
	}
}
