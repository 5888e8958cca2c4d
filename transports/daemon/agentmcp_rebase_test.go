package daemon

import (
	"testing"

	sessionmcp "github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/transports/agentmcp"
)

// rebase points the entries the daemon injected for an extension (its
// /mcp/<name> with the session's own token, minted by an earlier run) at
// the current address with this run's token, and leaves a client's own
// server alone, even one named and routed alike.
func TestRebaseMovesOnlyTheDaemonsExtensionEntries(t *testing.T) {
	old, current := agentmcp.NewRunTokens(), agentmcp.NewRunTokens()
	m := &agentMCP{tokens: current}
	m.setBase("http://127.0.0.1:2")
	d := old.Descriptor("http://127.0.0.1:1", "ext", "s-1")
	injected := sessionmcp.ServerConfig{Type: "http", Name: "ext", URL: d.URL,
		Headers: []sessionmcp.HTTPHeader{{Name: d.Headers[0].Name, Value: d.Headers[0].Value}}}
	other := old.Descriptor("http://127.0.0.1:1", "ext", "s-2") // another session's token
	foreign := sessionmcp.ServerConfig{Type: "http", Name: "ext", URL: other.URL,
		Headers: []sessionmcp.HTTPHeader{{Name: "Authorization", Value: other.Headers[0].Value}}}
	mine := sessionmcp.ServerConfig{Type: "http", Name: "tools", URL: "http://example.test/mcp/tools",
		Headers: []sessionmcp.HTTPHeader{{Name: "Authorization", Value: "Bearer theirs"}}}
	short := sessionmcp.ServerConfig{Type: "http", Name: "ext", URL: d.URL,
		Headers: []sessionmcp.HTTPHeader{{Name: "Authorization", Value: "Bearer s-1.theirs"}}}
	out := m.rebase("s-1", []sessionmcp.ServerConfig{injected, foreign, mine, short})
	testkit.Equal(t, out[0].URL, "http://127.0.0.1:2/mcp/ext")
	testkit.Equal(t, out[0].Headers[0].Value, "Bearer "+current.Mint("s-1"))
	if _, ok := current.Check(old.Mint("s-1")); ok {
		t.Fatal("an earlier run's token is accepted")
	}
	testkit.Equal(t, out[1].URL, other.URL)
	testkit.Equal(t, out[2].URL, mine.URL)
	testkit.Equal(t, out[3].Headers[0].Value, "Bearer s-1.theirs")
}
