package acp

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/acp/pipeline"
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
		watchers := c.cfg.Pipeline.Watching(p.SessionID)
		c.spawnChild(ctx, "vote", func(key int64) *actor.Props {
			return actor.PropsFromProducer(func() actor.Actor {
				return &permissionVote{session: p.SessionID, toolCallID: p.ToolCall.ToolCallID, params: params,
					watchers: watchers, key: key}
			})
		}, func(d pipeline.Done) {
			if d.Err != nil {
				c.fail(ctx, id, d.Err)
				return
			}
			c.reply(ctx, id, d.Response)
		})
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
	case *pipeline.Answer:
		if m.M.Error != nil {
			return // an abstention; the others may still answer
		}
		v.finish(ctx, m.M.Result, nil)
		for _, w := range v.watchers {
			ctx.Send(w, &permissionWon{session: v.session, toolCallID: v.toolCallID, result: m.M.Result})
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
	ctx.Send(ctx.Parent(), &pipeline.Done{Key: v.key, Response: result, Err: err})
	ctx.Stop(ctx.Self())
}

// permissionResolved tells this connection's clients of session that a
// transformer's permission request was answered: outcome is the winning
// answer's outcome (what a client's own request would be answered), and
// the option chosen is named as the session's own permission_resolved
// names it (chosenOptionId, optionId).
func (c *conn) permissionResolved(ctx actor.Context, m *permissionWon) {
	if a := c.att[m.session]; a == nil {
		return
	}
	var won struct {
		Outcome json.RawMessage `json:"outcome"`
	}
	_ = json.Unmarshal(m.result, &won)
	var chosen struct {
		OptionID string `json:"optionId"`
	}
	_ = json.Unmarshal(won.Outcome, &chosen)
	u := map[string]any{"sessionUpdate": "permission_resolved", "toolCallId": m.toolCallID}
	if len(won.Outcome) > 0 {
		u["outcome"] = won.Outcome
	}
	if chosen.OptionID != "" {
		u["chosenOptionId"], u["optionId"] = chosen.OptionID, chosen.OptionID
	}
	c.notify(ctx, "session/update", map[string]any{"sessionId": m.session, "update": u})
}
