package metrics

import (
	"strings"
	"time"

	"github.com/troupehq/troupe/runtime/tools"
)

// Outcomes of a tool call.
const (
	OutcomeOK        = "ok"
	OutcomeError     = "error"
	OutcomeCancelled = "cancelled"
)

// builtinTools are the tools whose names are labels of their own; every
// other name is user-defined (an MCP server's, a plugin's) and would let
// a configuration grow the series without bound.
var builtinTools = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range tools.Builtins() {
		m[strings.ToLower(t.Name())] = true
	}
	return m
}()

// ToolLabel is the tool label of a call: a built-in's name, "mcp" for an
// MCP server's tool, "other" for anything else.
func ToolLabel(name string, mcp bool) string {
	switch {
	case mcp:
		return "mcp"
	case builtinTools[strings.ToLower(name)]:
		return strings.ToLower(name)
	default:
		return "other"
	}
}

// ToolCall records one finished tool call.
func ToolCall(tool, outcome string, took time.Duration) {
	ToolCalls.WithLabelValues(tool, outcome).Inc()
	ToolCallSeconds.WithLabelValues(tool).Observe(took.Seconds())
}

// actorKinds are the actor kinds a restart is counted under (the names of
// ARCHITECTURE.md's actor tree); any other name counts as "other", so an
// id or a user's name never becomes a label.
var actorKinds = map[string]bool{
	"troupe": true, "store-writer": true, "streams": true, "stream": true, "agent-runs": true, "run": true,
	"mcp": true, "process": true, "chain-links": true, "chain-link": true, "chain": true, "sessions": true,
	"session": true, "queue": true, "call": true, "agent": true, "subscription": true, "servers": true,
	"server": true, "extensions": true, "transformers": true, "member": true, "transports": true,
	"rpc": true, "json-stream": true, "acp": true, "acp-ws": true, "writer": true, "vote": true,
	"await": true, "emit": true,
}

// ActorKind is the kind of the actor with protoactor id id
// ("troupe/sessions/<id>/run$7" is a run): its name without protoactor's
// number or the connection's, a session or a chain link by its parent.
func ActorKind(id string) string {
	parent, name := "", id
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		parent, name = id[:i], id[i+1:]
		if j := strings.LastIndexByte(parent, '/'); j >= 0 {
			parent = parent[j+1:]
		}
	}
	switch parent {
	case "sessions":
		return "session"
	case "chain-links":
		return "chain-link"
	}
	if i := strings.IndexByte(name, '$'); i >= 0 {
		name = name[:i]
	}
	name = strings.TrimRight(name, "0123456789-")
	if actorKinds[name] {
		return name
	}
	return "other"
}
