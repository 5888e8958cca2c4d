package mcp_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/testkit"
)

// An HTTP server that goes away and comes back on the same address (a new
// process: it knows nothing of the old MCP session) is reconnected, and
// the tools handed out before reach it again, from the first call on.
func TestHTTPServerRestartReconnects(t *testing.T) {
	mcp.SetBackoff(t, 20*time.Millisecond, 200*time.Millisecond, time.Hour)
	handler := func() http.Handler {
		return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return echoServer() }, nil)
	}
	first := httptest.NewServer(handler())
	addr := first.Listener.Addr().String()
	sys := newSystem(t)
	pid := spawn(t, sys, mcp.Props(mcp.ServerConfig{Name: "web", Type: mcp.TransportHTTP, URL: first.URL}, t.TempDir()))
	echo := mustTools(t, sys, pid)["web__echo"]
	testkit.Equal(t, run(t, echo, `{"text":"a"}`).Output, "web:a")

	first.CloseClientConnections()
	first.Close()
	ln, err := net.Listen("tcp", addr)
	testkit.NoError(t, err)
	second := httptest.NewUnstartedServer(handler())
	second.Listener = ln
	second.Start()
	// Close waits for open connections: stop the actor first (cleanups run
	// last-registered first).
	t.Cleanup(second.Close)
	t.Cleanup(func() { _ = sys.Root.StopFuture(pid).Wait() })

	// The new server refuses the old session (404) before running
	// anything, so the call goes to the new connection instead of failing.
	if r := run(t, echo, `{"text":"b"}`); r.IsError || r.Output != "web:b" {
		t.Fatalf("first call after the restart: %+v", r)
	}
}
