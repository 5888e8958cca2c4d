package main

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// bearer adds the daemon's token to every request of the SDK's client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// The official Go SDK's client, as most MCP hosts are built, against both
// transports: it connects (it asks for a version newer than troupe serves
// and settles on 2025-11-25), lists the tools and runs a prompt with
// progress. The server writes every progress notification before the
// result, but the SDK hands notifications to their handler on another
// goroutine than responses, so the test waits for the ones it is owed.
func TestMCPOfficialClient(t *testing.T) {
	reply := llmserver.Steps(llmserver.Text("Hi"), llmserver.Delay(50*time.Millisecond), llmserver.Text(" from troupe."))
	env, model := llmEnv(t, reply, reply)
	bin := testkit.BuildTroupe(t)
	d := startDaemon(t, t.TempDir(), env, model...)
	cmd := exec.Command(bin, append([]string{"mcp", "--home", t.TempDir()}, model...)...)
	cmd.Env = append(cmd.Environ(), env...)
	transports := map[string]sdk.Transport{
		"stdio": &sdk.CommandTransport{Command: cmd},
		"http":  &sdk.StreamableClientTransport{Endpoint: d.url + "/mcp", HTTPClient: &http.Client{Transport: bearer{d.token}}},
	}
	for name, tr := range transports {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), mcpWait)
			defer cancel()
			var mu sync.Mutex
			var streamed strings.Builder
			more := make(chan struct{}, 1)
			c := sdk.NewClient(&sdk.Implementation{Name: "sdk-client", Version: "1"}, &sdk.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
					mu.Lock()
					streamed.WriteString(r.Params.Message)
					mu.Unlock()
					select {
					case more <- struct{}{}:
					default:
					}
				},
			})
			cs, err := c.Connect(ctx, tr, nil)
			testkit.NoError(t, err)
			defer cs.Close()
			if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
				t.Errorf("negotiated %s", v)
			}
			tools, err := cs.ListTools(ctx, nil)
			testkit.NoError(t, err)
			if len(tools.Tools) < 17 {
				t.Errorf("%d tools", len(tools.Tools))
			}
			created, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "session.create", Arguments: map[string]any{"cwd": t.TempDir()}})
			testkit.NoError(t, err)
			id, _ := created.StructuredContent.(map[string]any)["session_id"].(string)
			params := &sdk.CallToolParams{Name: "session.prompt", Arguments: map[string]any{"session_id": id, "text": "hello"}}
			params.SetProgressToken("p")
			res, err := cs.CallTool(ctx, params)
			testkit.NoError(t, err)
			text := res.Content[0].(*sdk.TextContent).Text
			got := waitStreamed(ctx, &mu, &streamed, more, len(text))
			if res.IsError || text != "Hi from troupe." || got != text {
				t.Errorf("prompt: error %v, answer %q, streamed %q", res.IsError, text, got)
			}
		})
	}
}

// waitStreamed returns what the progress notifications streamed once it
// is n bytes long or more, or when ctx ends.
func waitStreamed(ctx context.Context, mu *sync.Mutex, streamed *strings.Builder, more <-chan struct{}, n int) string {
	for {
		mu.Lock()
		got := streamed.String()
		mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-more:
		case <-ctx.Done():
			return got
		}
	}
}
