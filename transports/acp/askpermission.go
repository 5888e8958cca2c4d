package acp

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// A transformer's hydra-acp/session/request_permission: the request goes
// to every client attached (writable) to the target session, and the first
// answer is the transformer's result; the others are told
// permission_resolved.

type (
	// askClients asks a connection's clients attached to session.
	askClients struct {
		session string
		params  json.RawMessage
		reply   *actor.PID
	}
	// askedClients answers askClients: how many were asked.
	askedClients struct{ n int }
	// permissionWon tells a connection whose clients lost.
	permissionWon struct {
		session, toolCallID string
		result              json.RawMessage
	}
)

func (c *conn) transformerPermission(ctx actor.Context, id, params json.RawMessage) {
	var p struct {
		SessionID string `json:"sessionId"`
		ToolCall  struct {
			ToolCallID string `json:"toolCallId"`
		} `json:"toolCall"`
	}
	if !c.decodeParams(ctx, id, params, &p) || !c.requireSession(ctx, id, p.SessionID) {
		return
	}
	c.async(ctx).Meta(p.SessionID, func(_ sessions.Meta, err error) {
		if err != nil {
			c.answerErr(ctx, id, p.SessionID, err)
			return
		}
		watchers := c.cfg.Pipeline.watching(p.SessionID)
		c.chainKey++
		key := c.chainKey
		c.chains[key] = func(d chainDone) {
			if d.err != nil {
				c.fail(ctx, id, d.err)
				return
			}
			c.reply(ctx, id, d.response)
		}
		ctx.Spawn(actor.PropsFromProducer(func() actor.Actor {
			return &permissionVote{session: p.SessionID, toolCallID: p.ToolCall.ToolCallID, params: params,
				watchers: watchers, key: key}
		}))
	})
}

// askAttached asks this connection's writable attachment to session.
func (c *conn) askAttached(ctx actor.Context, m *askClients) {
	a := c.att[m.session]
	if a == nil || a.readonly || a.replay != nil || c.closing {
		ctx.Send(m.reply, &askedClients{})
		return
	}
	c.ask(ctx, "session/request_permission", m.params, outgoing{reply: m.reply})
	ctx.Send(m.reply, &askedClients{n: 1})
}

// permissionVote collects the answers to one transformer-initiated
// permission request.
type permissionVote struct {
	session, toolCallID string
	params              json.RawMessage
	watchers            []*actor.PID
	key                 int64

	replies, asked int
	done           bool
}

func (v *permissionVote) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		if len(v.watchers) == 0 {
			v.finish(ctx, nil, jsonrpc.NewError(CodePermissionDenied, "session "+v.session+" has no attached clients to ask"))
			return
		}
		for _, w := range v.watchers {
			ctx.Send(w, &askClients{session: v.session, params: v.params, reply: ctx.Self()})
		}
	case *askedClients:
		v.replies++
		v.asked += m.n
		if v.replies == len(v.watchers) && v.asked == 0 {
			v.finish(ctx, nil, jsonrpc.NewError(CodePermissionDenied, "session "+v.session+" has no attached clients to ask"))
		}
	case *peerAnswer:
		if m.m.Error != nil {
			return // an abstention; the others may still answer
		}
		v.finish(ctx, m.m.Result, nil)
		for _, w := range v.watchers {
			ctx.Send(w, &permissionWon{session: v.session, toolCallID: v.toolCallID, result: m.m.Result})
		}
	case *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Terminated:
	default:
		actorlog.Unhandled(actorlog.For(ctx, "permission_vote", v.session), ctx)
	}
}

func (v *permissionVote) finish(ctx actor.Context, result json.RawMessage, err *jsonrpc.Error) {
	if v.done {
		return
	}
	v.done = true
	ctx.Send(ctx.Parent(), &chainDone{key: v.key, response: result, err: err})
	ctx.Stop(ctx.Self())
}

// permissionResolved tells this connection's clients of session that a
// transformer's permission request was answered.
func (c *conn) permissionResolved(ctx actor.Context, m *permissionWon) {
	if a := c.att[m.session]; a != nil {
		c.notify(ctx, "session/update", map[string]any{"sessionId": m.session, "update": map[string]any{
			"sessionUpdate": "permission_resolved", "toolCallId": m.toolCallID, "outcome": m.result}})
	}
}
