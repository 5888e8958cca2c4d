package acp

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
)

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
	c.client = ClientInfo{Name: p.ClientInfo.Name, Version: p.ClientInfo.Version}
	if c.peer.Kind != "" && c.cfg.Pipeline.OnVersion != nil {
		c.cfg.Pipeline.OnVersion(c.peer, p.ClientInfo.Version)
	}
	c.reply(ctx, id, map[string]any{
		"protocolVersion":   1,
		"agentInfo":         map[string]any{"name": "troupe", "title": "troupe", "version": c.cfg.Version},
		"agentCapabilities": agentCapabilities(),
		"authMethods":       []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{
			"prompt": map[string]any{"queueing": true, "cancelling": true, "updating": true, "amending": true, "pipelining": false},
			"agents": map[string]any{"list": true, "installProgress": c.cfg.Agents != nil},
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

// agentCapabilities are what initialize says the agent can do, and what a
// session's _meta["hydra-acp"].agentCapabilities repeats (troupe runs one
// agent). MCP servers over Streamable HTTP and HTTP+SSE are taken as well
// as stdio ones (actors/sessions/mcp).
func agentCapabilities() map[string]any {
	return map[string]any{
		"loadSession":        true,
		"promptCapabilities": map[string]any{"image": true, "audio": false, "embeddedContext": true},
		"mcpCapabilities":    map[string]any{"http": true, "sse": true},
		"sessionCapabilities": map[string]any{
			"attach": map[string]any{}, "list": map[string]any{}, "resume": map[string]any{},
			"close": map[string]any{}, "delete": map[string]any{}, "fork": map[string]any{},
		},
	}
}
