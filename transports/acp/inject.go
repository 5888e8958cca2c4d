package acp

import (
	"encoding/json"
	"fmt"

	"github.com/troupehq/troupe/transports/jsonrpc"
)

// InjectMCP returns the daemon's own MCP servers for a new session, as
// mcpServers entries; stdin says session/new asked for the stdin ring
// (_meta["hydra-acp"].mcpStdin). Nil injects nothing.
type InjectMCP func(sessionID string, stdin bool) []any

// withInjected is the client's mcpServers plus the injected ones; a
// client entry bearing an injected server's name gives way to it, since
// two servers of one name would refuse to start together.
func withInjected(client json.RawMessage, inject InjectMCP, sessionID string, stdin bool) (json.RawMessage, error) {
	if inject == nil {
		return client, nil
	}
	extra := inject(sessionID, stdin)
	if len(extra) == 0 {
		return client, nil
	}
	var entries []json.RawMessage
	if len(client) > 0 && !jsonrpc.IsNull(client) {
		if err := json.Unmarshal(client, &entries); err != nil {
			return nil, fmt.Errorf("mcpServers must be an array: %w", err)
		}
	}
	names := map[string]bool{}
	for _, e := range extra {
		b, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("encode injected mcp server: %w", err)
		}
		var n struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(b, &n)
		names[n.Name] = true
	}
	out := make([]any, 0, len(entries)+len(extra))
	for _, e := range entries {
		var n struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(e, &n) == nil && names[n.Name] {
			continue
		}
		out = append(out, e)
	}
	out = append(out, extra...)
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode mcpServers: %w", err)
	}
	return b, nil
}
