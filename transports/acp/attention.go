package acp

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// attentionParams' request side: hydra-acp/attention/set and clear.
type attentionChange struct {
	SessionID *string         `json:"sessionId"`
	Reason    *string         `json:"reason"`
	Payload   json.RawMessage `json:"payload"`
}

// attentionSource is the source this connection's flags are raised under,
// resolved from its identity, never from the request: a transformer's or
// an extension's process name (from its per-process token, whatever its
// initialize says), else the name a client gave in initialize. "daemon"
// is the daemon's own and is not lent out.
func (c *conn) attentionSource() string {
	name := c.client.Name
	if c.peer.Name != "" {
		name = c.peer.Name
	}
	if name == "" || name == "daemon" {
		return "client"
	}
	return name
}

func (c *conn) attentionSet(ctx actor.Context, id, params json.RawMessage) {
	c.changeAttention(ctx, id, params, false)
}

func (c *conn) attentionClear(ctx actor.Context, id, params json.RawMessage) {
	c.changeAttention(ctx, id, params, true)
}

// changeAttention asks the session for the change, which records it
// (attention.changed) and so reaches every attached client as
// attention_updated; the session need not be attached here.
func (c *conn) changeAttention(ctx actor.Context, id, params json.RawMessage, clear bool) {
	var p attentionChange
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	if p.SessionID == nil || *p.SessionID == "" || p.Reason == nil || *p.Reason == "" {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: sessionId and reason are required strings"))
		return
	}
	sid := *p.SessionID
	m := sessions.AttentionChange{Source: c.attentionSource(), Reason: *p.Reason, Clear: clear}
	if !clear && len(p.Payload) > 0 && !jsonrpc.IsNull(p.Payload) {
		m.Payload = p.Payload
	}
	c.async(ctx).SetAttention(sid, m, func(_ sessions.AttentionResult, err error) {
		if err != nil {
			c.answerErr(ctx, id, sid, err)
			return
		}
		if id != nil {
			c.reply(ctx, id, map[string]any{"ok": true})
		}
	})
}
