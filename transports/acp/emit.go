package acp

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// A transformer's hydra-acp/message/emit, once through the rest of the
// chain (or straight, route daemon), is delivered to the session by a
// child of the transformer's connection: a prompt is queued and answered
// once its run ended (the emit's promise is the end of the turn), a
// cancel cancels the running run.

// emitSpec is one emitted message to deliver.
type emitSpec struct {
	session, method string
	envelope        json.RawMessage
	client          string // who the prompt is recorded as sent by
}

// deliverEmit starts the delivery as a child; then gets its outcome.
func (c *conn) deliverEmit(ctx actor.Context, s emitSpec, then func(pipeline.Done)) {
	c.spawnChild(ctx, "emit", func(key int64) *actor.Props {
		return actor.PropsFromProducer(func() actor.Actor { return &emitRun{emitSpec: s, sessions: c.cfg.Sessions, key: key} })
	}, then)
}

// emitRun delivers one emitted message and reports pipeline.Done.
type emitRun struct {
	emitSpec
	sessions *sessions.Client
	key      int64

	msgID   string // the prompt
	sub     *actor.PID
	settled bool
}

func (r *emitRun) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		r.deliver(ctx)
	case *sessions.Events:
		r.onEvents(ctx, m.Events)
	case *sessions.Closed:
		if r.msgID != "" {
			r.finish(ctx, pipeline.Done{Err: jsonrpc.NewError(jsonrpc.CodeInternal, "session "+r.session+" closed: "+m.Reason)})
		}
	case *actor.Stopping:
		if r.sub != nil {
			r.sessions.Unsubscribe(r.session, r.sub)
			r.sub = nil
		}
	case *actor.Stopped, *actor.Restarting, *actor.Terminated:
	default:
		actorlog.Unhandled(actorlog.For(ctx, "chain", r.session), ctx)
	}
}

func (r *emitRun) deliver(ctx actor.Context) {
	switch r.method {
	case "session/prompt":
		r.prompt(ctx)
	case "session/cancel":
		r.sessions.Async(ctx).Cancel(r.session, "cancelled by transformer "+r.client, func(_ sessions.CancelResult, err error) {
			if err != nil {
				r.finish(ctx, pipeline.Done{Err: SessionError(r.session, err)})
				return
			}
			r.finish(ctx, pipeline.Done{Action: "continue", Envelope: r.envelope})
		})
	default:
		r.finish(ctx, pipeline.Done{Err: jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: emitting "+r.method+" is not supported")})
	}
}

// prompt queues the emitted prompt; the answer comes with its run's end.
func (r *emitRun) prompt(ctx actor.Context) {
	var p promptParams
	if err := json.Unmarshal(r.envelope, &p); err != nil {
		r.finish(ctx, pipeline.Done{Err: jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: envelope: "+err.Error())})
		return
	}
	content, rerr := blocks(p.Prompt)
	if rerr != nil {
		r.finish(ctx, pipeline.Done{Err: rerr})
		return
	}
	async := r.sessions.Async(ctx)
	async.Subscribe(r.session, 0, true, func(s sessions.Subscribed, err error) {
		if err != nil {
			r.finish(ctx, pipeline.Done{Err: SessionError(r.session, err)})
			return
		}
		r.sub = s.Subscription
		r.msgID = newID("msg-")
		// A transformer's prompt is machine traffic whatever its envelope
		// says, as Hydra queues one (no title, no promotion).
		async.Prompt(r.session, sessions.PromptRequest{MessageID: r.msgID, Content: content, Client: r.client, Ancillary: true},
			func(_ sessions.PromptResult, err error) {
				if err != nil {
					r.finish(ctx, pipeline.Done{Err: SessionError(r.session, err)})
				}
			})
	})
}

func (r *emitRun) onEvents(ctx actor.Context, evs []event.Event) {
	if r.msgID == "" {
		return
	}
	for _, e := range evs {
		switch e.Kind {
		case event.RunEnded:
			var p event.RunEndedPayload
			if e.Decode(&p) == nil && p.RunID == r.msgID {
				res, _ := json.Marshal(promptResult{StopReason: acpupdate.StopReason(p.StopReason)})
				r.finish(ctx, pipeline.Done{Action: "continue", Envelope: r.envelope, Response: res})
				return
			}
		case event.PromptCancelled:
			var p event.PromptChangedPayload
			if e.Decode(&p) == nil && p.MessageID == r.msgID {
				res, _ := json.Marshal(promptResult{StopReason: "cancelled"})
				r.finish(ctx, pipeline.Done{Action: "continue", Envelope: r.envelope, Response: res})
				return
			}
		}
	}
}

func (r *emitRun) finish(ctx actor.Context, d pipeline.Done) {
	if r.settled {
		return
	}
	r.settled = true
	d.Key = r.key
	ctx.Send(ctx.Parent(), &d)
	ctx.Stop(ctx.Self())
}
