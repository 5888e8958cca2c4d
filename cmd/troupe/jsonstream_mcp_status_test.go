package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// An MCP server lost under a --json-stream session (its program exits in
// a tool call) and started again is shown as info lines, with no run.
func TestJSONStreamShowsMCPStatus(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.ToolCall("c1", "t__crash", `{}`)), llmserver.Steps(llmserver.Text("done")))
	d := startDaemon(t, home, env, model...)
	var created struct{ SessionID string }
	d.call(t, "POST", "/v1/sessions", map[string]any{"cwd": work, "mcpServers": []any{mcpServer(t)}}, http.StatusCreated, &created)
	id := created.SessionID
	d.do(t, "POST", "/v1/sessions/"+id+"/kill", nil)

	js := testkit.Start(t, testkit.BuildTroupe(t), env, append([]string{"--json-stream", "--home", home, "--resume", id, "--auto-approve"}, model...)...)
	expectLine(t, js, `"type":"ready"`)
	_, _ = js.Stdin.Write([]byte(`{"type":"message","msg_id":"m1","input":"crash it"}` + "\n"))
	// The turn goes on without the server; it comes back after the turn
	// or during it.
	lost, connected, ended := false, false, false
	for !lost || !connected || !ended {
		line, ok := js.ReadLine(30 * time.Second)
		if !ok {
			t.Fatalf("lost %v, connected %v, stream_end %v; stderr:\n%s", lost, connected, ended, js.Stderr())
		}
		switch {
		case strings.HasPrefix(line, `{"type":"info","msg_id":null,"message":"MCP server t was lost (`):
			lost = true
		case strings.HasPrefix(line, `{"type":"info","msg_id":null,"message":"MCP server t is connected (`):
			connected = true
		case strings.Contains(line, `"type":"stream_end"`):
			ended = true
		}
	}
}
