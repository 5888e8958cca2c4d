package acp

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/transports/jsonrpc"
)

// decodeParams reads params into v; a failure answers InvalidParams and
// returns false.
func (c *conn) decodeParams(ctx actor.Context, id, params json.RawMessage, v any) bool {
	if len(params) == 0 || jsonrpc.IsNull(params) {
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, v); err != nil {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: "+err.Error()))
		return false
	}
	return true
}

// requireSession answers invalid params when a session method names no
// session.
func (c *conn) requireSession(ctx actor.Context, id json.RawMessage, sessionID string) bool {
	if sessionID == "" {
		c.fail(ctx, id, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "invalid params: sessionId is required"))
		return false
	}
	return true
}

// attached returns the attachment a session method names, answering the
// error itself when there is none.
func (c *conn) attached(ctx actor.Context, id json.RawMessage, sessionID string) *attachment {
	if !c.requireSession(ctx, id, sessionID) {
		return nil
	}
	a := c.att[sessionID]
	if a == nil || a.replay != nil {
		c.fail(ctx, id, jsonrpc.NewError(CodeSessionNotFound, "session "+sessionID+" is not attached on this connection: session/new, session/load, session/resume or session/attach first"))
		return nil
	}
	return a
}

// answerErr answers a facade error: a session's refusal keeps its words.
func (c *conn) answerErr(ctx actor.Context, id json.RawMessage, sessionID string, err error) {
	if id != nil {
		c.fail(ctx, id, SessionError(sessionID, err))
	}
}
