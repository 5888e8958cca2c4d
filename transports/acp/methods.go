package acp

import (
	"encoding/json"

	"github.com/troupehq/troupe/transports/jsonrpc"

	"github.com/asynkron/protoactor-go/actor"
)

// handler serves one request (id set) or notification (id nil).
type handler func(c *conn, ctx actor.Context, id json.RawMessage, params json.RawMessage)

// methods are the methods served; any other answers MethodNotFound
// (transformers, extensions, stdin streaming come with a later issue).
var methods = map[string]handler{
	"initialize":                (*conn).initialize,
	"authenticate":              (*conn).authenticate,
	"session/new":               (*conn).sessionNew,
	"session/load":              (*conn).sessionLoad,
	"session/resume":            (*conn).sessionResume,
	"session/attach":            (*conn).sessionAttach,
	"session/detach":            (*conn).sessionDetach,
	"session/close":             (*conn).sessionClose,
	"session/delete":            (*conn).sessionDelete,
	"session/list":              (*conn).sessionList,
	"session/prompt":            (*conn).sessionPrompt,
	"session/cancel":            (*conn).sessionCancel,
	"session/set_mode":          (*conn).setMode,
	"session/set_model":         (*conn).setModel,
	"session/set_config_option": (*conn).setConfigOption,
	"hydra-acp/prompt/cancel":   (*conn).promptCancel,
	"hydra-acp/prompt/update":   (*conn).promptUpdate,
	"hydra-acp/prompt/amend":    (*conn).promptAmend,
	"hydra-acp/agents/list":     (*conn).agentsList,
	"hydra-acp/attention/set":   (*conn).attentionSet,
	"hydra-acp/attention/clear": (*conn).attentionClear,
	"hydra-acp/session/fork":    (*conn).sessionFork,
}

// mutating are the methods a read-only attachment is refused.
var mutating = map[string]bool{
	"session/prompt": true, "session/cancel": true, "session/close": true, "session/delete": true, "session/set_mode": true, "session/set_model": true,
	"session/set_config_option": true, "hydra-acp/prompt/cancel": true, "hydra-acp/prompt/update": true,
	"hydra-acp/prompt/amend": true, "hydra-acp/attention/set": true, "hydra-acp/attention/clear": true,
}

func (c *conn) dispatch(ctx actor.Context, m jsonrpc.Message) {
	h, ok := methods[m.Method]
	if transformerOnly[m.Method] && c.peer.Kind != KindTransformer || processOnly[m.Method] && c.peer.Kind == "" {
		ok = false
	}
	if !ok {
		if m.IsRequest() {
			c.fail(ctx, m.ID, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: "+m.Method))
		}
		return
	}
	if !c.inited && m.Method != "initialize" {
		if m.IsRequest() {
			c.fail(ctx, m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "initialize must come first"))
		}
		return
	}
	if mutating[m.Method] {
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if a := c.att[p.SessionID]; a != nil && a.readonly {
			if m.IsRequest() {
				c.fail(ctx, m.ID, jsonrpc.NewError(CodePermissionDenied, "session "+p.SessionID+" is attached read-only: "+m.Method+" is refused"))
			}
			return
		}
	}
	if chainable[m.Method] && c.throughChain(ctx, m, h) {
		return
	}
	h(c, ctx, m.ID, m.Params)
}

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

type initializeParams struct {
	ProtocolVersion int `json:"protocolVersion"`
	ClientInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
}

// initialize answers with the agent's capabilities and hydra's
// capability groups (the spec's Capability discovery): only what is
// served is claimed.
func (c *conn) initialize(ctx actor.Context, id, params json.RawMessage) {
	var p initializeParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	c.inited = true
	c.client = ClientInfo{Name: p.ClientInfo.Name, Version: p.ClientInfo.Version}
	if c.peer.Kind != "" && c.cfg.Pipeline.OnVersion != nil {
		c.cfg.Pipeline.OnVersion(c.peer, p.ClientInfo.Version)
	}
	c.reply(ctx, id, map[string]any{
		"protocolVersion": 1,
		"agentInfo":       map[string]any{"name": "troupe", "title": "troupe", "version": c.cfg.Version},
		"agentCapabilities": map[string]any{
			"loadSession":        true,
			"promptCapabilities": map[string]any{"image": true, "audio": false, "embeddedContext": true},
			"mcpCapabilities":    map[string]any{"http": false, "sse": false},
			"sessionCapabilities": map[string]any{
				"attach": map[string]any{}, "list": map[string]any{}, "resume": map[string]any{},
				"close": map[string]any{}, "delete": map[string]any{}, "fork": map[string]any{},
			},
		},
		"authMethods": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{
			"prompt": map[string]any{"queueing": true, "cancelling": true, "updating": true, "amending": true, "pipelining": false},
			"agents": map[string]any{"list": true, "installProgress": false},
		}},
	})
}

// authenticate: the connection was authenticated before it was served
// (the daemon's token check; stdio needs none), so any method succeeds.
func (c *conn) authenticate(ctx actor.Context, id, _ json.RawMessage) {
	if id != nil {
		c.reply(ctx, id, map[string]any{})
	}
}
