package main

import (
	"testing"

	sessionmcp "github.com/troupehq/troupe/actors/session/mcp"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/transports/agentmcp"
)

// rebase points the entries the daemon injected for an extension (its
// /mcp/<name> with the session's own token) at the current address, and
// leaves a client's own server alone, even one named and routed alike.
func TestRebaseMovesOnlyTheDaemonsExtensionEntries(t *testing.T) {
	old := agentmcp.NewTokens("service-token")
	m := &agentMCP{tokens: old}
	m.setBase("http://127.0.0.1:2")
	d := old.Descriptor("http://127.0.0.1:1", "ext", "s-1")
	injected := sessionmcp.ServerConfig{Type: "http", Name: "ext", URL: d.URL,
		Headers: []sessionmcp.HTTPHeader{{Name: d.Headers[0].Name, Value: d.Headers[0].Value}}}
	other := old.Descriptor("http://127.0.0.1:1", "ext", "s-2") // another session's token
	foreign := sessionmcp.ServerConfig{Type: "http", Name: "ext", URL: other.URL,
		Headers: []sessionmcp.HTTPHeader{{Name: "Authorization", Value: other.Headers[0].Value}}}
	mine := sessionmcp.ServerConfig{Type: "http", Name: "tools", URL: "http://example.test/mcp/tools",
		Headers: []sessionmcp.HTTPHeader{{Name: "Authorization", Value: "Bearer theirs"}}}
	out := m.rebase("s-1", []sessionmcp.ServerConfig{injected, foreign, mine})
	testkit.Equal(t, out[0].URL, "http://127.0.0.1:2/mcp/ext")
	testkit.Equal(t, out[0].Headers[0].Value, "Bearer "+old.Mint("s-1"))
	testkit.Equal(t, out[1].URL, other.URL)
	testkit.Equal(t, out[2].URL, mine.URL)
}
