package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/actors/sessions/mcp"
)

// headerLog records two headers of every request a handler serves.
type headerLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *headerLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Method+" "+r.Header.Get("Authorization")+" "+r.Header.Get("X-Troupe-Test"))
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *headerLog) requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

type echoIn struct {
	Text string `json:"text"`
}

func echoServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo"},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "web:" + in.Text}}}, nil, nil
		})
	return s
}

func TestHTTPTransports(t *testing.T) {
	getServer := func(*http.Request) *sdk.Server { return echoServer() }
	cases := []struct {
		transport string
		handler   http.Handler
	}{
		{mcp.TransportHTTP, sdk.NewStreamableHTTPHandler(getServer, nil)},
		{mcp.TransportSSE, sdk.NewSSEHandler(getServer, nil)},
	}
	for _, tc := range cases {
		t.Run(tc.transport, func(t *testing.T) {
			var log headerLog
			srv := httptest.NewServer(log.wrap(tc.handler))
			defer srv.Close()

			sys := newSystem(t)
			cfg := mcp.ServerConfig{Type: tc.transport, Name: "web", URL: srv.URL, Headers: []mcp.HTTPHeader{
				{Name: "Authorization", Value: "Bearer t0k"},
				{Name: "X-Troupe-Test", Value: "yes"},
			}}
			pid := sys.Root.Spawn(mcp.Props(cfg, t.TempDir()))
			echo, ok := mustTools(t, sys, pid)["web__echo"]
			if !ok {
				t.Fatal("no web__echo")
			}
			if r := run(t, echo, `{"text":"hi"}`); r.IsError || r.Output != "web:hi" {
				t.Errorf("echo: %+v", r)
			}
			stop(t, sys, pid)

			reqs := log.requests()
			if len(reqs) < 2 {
				t.Fatalf("server saw %d requests", len(reqs))
			}
			for _, r := range reqs {
				if !strings.HasSuffix(r, " Bearer t0k yes") {
					t.Errorf("request without the configured headers: %q", r)
				}
			}
		})
	}
}

func stop(t *testing.T, sys *actor.ActorSystem, pid *actor.PID) {
	t.Helper()
	if err := sys.Root.StopFuture(pid).Wait(); err != nil {
		t.Fatal(err)
	}
}
