package metrics_test

import (
	"testing"

	"github.com/troupehq/troupe/runtime/metrics"
	"github.com/troupehq/troupe/runtime/tools"
	"github.com/troupehq/troupe/testkit"
)

// A restart's kind is the actor tree's name for the actor, never an id or
// a number, and a name the tree does not draw is "other".
func TestActorKindIsBounded(t *testing.T) {
	for id, want := range map[string]string{
		"troupe":                                   "troupe",
		"troupe/store-writer":                      "store-writer",
		"troupe/sessions/0190c6d2-aaaa-bbbb":       "session",
		"troupe/sessions/0190c6d2-aaaa-bbbb/run$7": "run",
		"troupe/sessions/s1/run$7/call$12":         "call",
		"troupe/sessions/s1/mcp-0":                 "mcp",
		"troupe/sessions/s1/mcp-0/process$3":       "process",
		"troupe/transports/acp-ws-14":              "acp-ws",
		"troupe/transports/acp-ws-14/writer$2":     "writer",
		"troupe/chain-links/s1":                    "chain-link",
		"troupe/extensions/member$4":               "member",
		"troupe/somebody-s-own-name":               "other",
	} {
		testkit.Equal(t, metrics.ActorKind(id), want)
	}
}

// Every built-in tool is a label of its own; an MCP tool is "mcp" whatever
// its server named it, and any other name "other".
func TestToolLabelIsBounded(t *testing.T) {
	for _, b := range tools.Builtins() {
		testkit.Equal(t, metrics.ToolLabel(b.Name(), false), b.Name())
	}
	testkit.Equal(t, metrics.ToolLabel("read", true), "mcp")
	testkit.Equal(t, metrics.ToolLabel("drop_tables_now", true), "mcp")
	testkit.Equal(t, metrics.ToolLabel("my_plugin_tool", false), "other")
}
