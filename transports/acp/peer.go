package acp

import (
	"encoding/json"
	"slices"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// A transformer's connection: its place in the sessions' chains (the
// chain runs and links are transports/acp/pipeline's; this side serves
// the transformer's methods and carries the runs' calls to it).

// callPeer sends this connection's process a request for a chain run (or
// another caller); the answer goes back to the caller.
func (c *conn) callPeer(ctx actor.Context, m *pipeline.Call) {
	if c.closing {
		ctx.Send(m.Reply, &pipeline.Answer{Step: m.Step, M: jsonrpc.Message{Error: jsonrpc.NewError(jsonrpc.CodeInternal, "the transformer's connection is closing")}})
		return
	}
	c.ask(ctx, m.Method, m.Params, outgoing{reply: m.Reply, step: m.Step})
}

// peerGone: a process's connection ends. It leaves the pipeline, and
// the chain runs waiting on its answers go on at once (fail-open).
func (c *conn) peerGone(ctx actor.Context) {
	if c.peer.Kind != "" && c.self != nil {
		if c.cfg.Pipeline.ProcessGone(c.peer, c.self) {
			c.announceCommands(ctx)
		}
	}
	for id, o := range c.outgoing {
		if o.reply != nil {
			ctx.Send(o.reply, &pipeline.Answer{Step: o.step, M: jsonrpc.Message{Error: jsonrpc.NewError(jsonrpc.CodeInternal, "the transformer's connection closed")}})
			delete(c.outgoing, id)
		}
	}
}

// spawnChild starts a child that reports a pipeline.Done with key (a
// chain run, or one of this connection's own: a vote, an await, an
// emit's delivery); then gets it on this connection's mailbox.
// role names it in the tree (role$N).
func (c *conn) spawnChild(ctx actor.Context, role string, props func(key int64) *actor.Props, then func(pipeline.Done)) {
	c.chainKey++
	c.chains[c.chainKey] = then
	ctx.SpawnPrefix(props(c.chainKey), role)
}

// runChain starts a chain run as a child; then gets its outcome.
func (c *conn) runChain(ctx actor.Context, s pipeline.Spec, then func(pipeline.Done)) {
	s.Pipeline = c.cfg.Pipeline
	c.spawnChild(ctx, "chain", func(key int64) *actor.Props {
		s.Key = key
		return pipeline.ChainProps(s)
	}, then)
}

type transformerInitParams struct {
	Intercepts []string `json:"intercepts"`
}

func (c *conn) transformerInitialize(ctx actor.Context, id, params json.RawMessage) {
	var p transformerInitParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	c.cfg.Pipeline.AddTransformer(ctx, c.peer.Name, ctx.Self(), p.Intercepts)
	c.tInited = true
	c.reply(ctx, id, map[string]any{"ack": true})
}

type sessionIDParams struct {
	SessionID string `json:"sessionId"`
}

// transformerAttach puts the calling transformer (never another) into a
// live session's chain.
func (c *conn) transformerAttach(ctx actor.Context, id, params json.RawMessage) {
	var p sessionIDParams
	if !c.decodeParams(ctx, id, params, &p) || !c.requireSession(ctx, id, p.SessionID) {
		return
	}
	if !c.tInited {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInternal, "hydra-acp/transformer/initialize first"))
		return
	}
	c.async(ctx).State(p.SessionID, func(_ sessions.State, err error) {
		if err != nil {
			c.fail(ctx, id, jsonrpc.NewError(CodeSessionNotFound, "session "+p.SessionID+" is not live"))
			return
		}
		// from: the seq the link watches from when it starts here (the
		// attach's own record; 0 when there is none: from the live stream).
		joined := func(from int64) {
			c.cfg.Pipeline.Join(p.SessionID, c.peer.Name)
			c.cfg.Pipeline.EnsureLink(ctx.ActorSystem(), c.cfg.Sessions, p.SessionID, from)
			c.lifecycle(ctx, p.SessionID, "session.opened", map[string]any{}, c.peer.Name)
			c.reply(ctx, id, map[string]any{"ok": true})
		}
		if c.cfg.Pipeline.InChain(p.SessionID, c.peer.Name) {
			joined(0) // a restarted transformer: already recorded
			return
		}
		// Recorded before it takes effect, so the chain a restart restores
		// is never shorter than the one the transformer was told about.
		d, err := event.NewDraft(event.TransformerAttached, event.TransformerAttachedPayload{Name: c.peer.Name})
		if err != nil {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInternal, "record the attach: "+err.Error()))
			return
		}
		c.async(ctx).Append(p.SessionID, []event.Draft{d}, func(seq int64, err error) {
			if err != nil {
				c.answerErr(ctx, id, p.SessionID, err)
				return
			}
			joined(seq)
		})
	})
}

func (c *conn) lifecycle(ctx actor.Context, session, ev string, payload any, only string) {
	c.cfg.Pipeline.Lifecycle(ctx.ActorSystem().Root, session, ev, payload, only)
}

type emitParams struct {
	SessionID  string          `json:"sessionId"`
	Method     string          `json:"method"`
	Envelope   json.RawMessage `json:"envelope"`
	Route      string          `json:"route"`
	RespondsTo string          `json:"respondsTo"`
}

// messageEmit discharges a processing claim (respondsTo), or delivers a
// message through the rest of the chain (route chain) or straight to the
// session (route daemon), answering the agent's response.
func (c *conn) messageEmit(ctx actor.Context, id, params json.RawMessage) {
	var p emitParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	if p.RespondsTo != "" {
		run, ok := c.cfg.Pipeline.Claim(p.RespondsTo)
		if !ok {
			c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: no processing claim "+p.RespondsTo+" (discharged, abandoned or unknown)"))
			return
		}
		ctx.Send(run, &pipeline.Discharge{Token: p.RespondsTo, Envelope: p.Envelope})
		c.reply(ctx, id, map[string]any{"ok": true})
		return
	}
	if !c.requireSession(ctx, id, p.SessionID) {
		return
	}
	if p.Method == "" || len(p.Envelope) == 0 {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: method and envelope are required"))
		return
	}
	s := pipeline.Spec{Session: p.SessionID, Method: p.Method, Direction: "client→agent", Envelope: p.Envelope, Skip: c.peer.Name}
	switch p.Route {
	case "chain":
		s.Names = c.cfg.Pipeline.ChainOf(p.SessionID)
		if i := slices.Index(s.Names, c.peer.Name); i >= 0 {
			s.Pos = i + 1 // re-enter after the emitter
		}
	case "daemon":
	default:
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, `invalid params: route must be "chain" or "daemon"`))
		return
	}
	answer := func(d pipeline.Done) {
		if d.Err != nil {
			c.fail(ctx, id, d.Err)
			return
		}
		c.reply(ctx, id, map[string]any{"ok": true, "response": rawOrNil(d.Response)})
	}
	c.runChain(ctx, s, func(d pipeline.Done) {
		switch {
		case d.Err != nil:
			c.fail(ctx, id, d.Err)
		case d.Action == "stop":
			c.reply(ctx, id, map[string]any{"ok": true, "response": rawOrNil(d.Envelope)})
		default:
			c.deliverEmit(ctx, emitSpec{session: p.SessionID, method: p.Method, envelope: d.Envelope, client: c.peer.Name}, answer)
		}
	})
}

func rawOrNil(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

type keepAliveParams struct {
	Token     string `json:"token"`
	SessionID string `json:"sessionId"`
}

func (c *conn) keepAlive(ctx actor.Context, id, params json.RawMessage) {
	var p keepAliveParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	run, ok := c.cfg.Pipeline.Claim(p.Token)
	if !ok {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: no processing claim "+p.Token))
		return
	}
	ctx.Send(run, &pipeline.KeepAlive{Token: p.Token})
	c.reply(ctx, id, map[string]any{"ok": true})
}

// throughChain runs m through its session's chain when a transformer
// intercepts it, then serves it (continue, maybe rewritten) or answers the
// transformer's payload (stop); false when no chain wants it.
func (c *conn) throughChain(ctx actor.Context, m jsonrpc.Message, h handler) bool {
	var p sessionIDParams
	if json.Unmarshal(m.Params, &p) != nil || p.SessionID == "" {
		return false
	}
	names := c.cfg.Pipeline.Chain(p.SessionID, "request:"+m.Method)
	if names == nil {
		return false
	}
	c.runChain(ctx, pipeline.Spec{Session: p.SessionID, Method: m.Method, Direction: "client→agent", Envelope: m.Params, Names: names},
		func(d pipeline.Done) {
			switch {
			case d.Err != nil:
				if m.ID != nil {
					c.fail(ctx, m.ID, d.Err)
				}
			case d.Action == "stop":
				if m.ID != nil {
					c.reply(ctx, m.ID, rawOrEmpty(d.Envelope))
				}
			default:
				h(c, ctx, m.ID, d.Envelope)
			}
		})
	return true
}

func rawOrEmpty(b json.RawMessage) any {
	if len(b) == 0 || jsonrpc.IsNull(b) {
		return map[string]any{}
	}
	return b
}
