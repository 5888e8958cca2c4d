package session_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A session created with an MCP server offers its tools to the model under
// category mcp, and the model's call reaches the server.
func TestMCPServerToolReachesTheModel(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "troupe-mcptest")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/troupehq/troupe/testkit/cmd/troupe-mcptest").CombinedOutput(); err != nil {
		t.Fatalf("build mcp test server: %v\n%s", err, out)
	}
	p, err := llmserver.NewProvider(llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("m1", "t__echo", `{"text":"hi"}`)),
		llmserver.Steps(llmserver.Text("the server echoed")),
	}}, llmserver.WithTest(t))
	testkit.NoError(t, err)
	rt := testkit.Boot(t, actors.Options{Engine: testkit.Engine(p, event.ToolStyleNative)})
	servers, _ := json.Marshal([]map[string]any{{"name": "t", "command": bin, "args": []string{}, "env": []any{}}})
	ctx := context.Background()
	testkit.NoError(t, rt.Sessions.Create(ctx, "m", event.CreatedPayload{Cwd: t.TempDir(), MCPServers: servers}))
	c := testkit.NewCollector(t, rt.System)
	_, err = rt.Sessions.Subscribe(ctx, "m", 1, false, c.PID())
	testkit.NoError(t, err)

	run := testkit.Prompt(t, rt, "m", "echo hi")
	testkit.Equal(t, testkit.WaitRunEnded(t, c, run, 30*time.Second).StopReason, event.StopEndTurn)
	var started event.ToolStartedPayload
	testkit.NoError(t, c.WaitKind(t, event.ToolStarted, time.Second).Decode(&started))
	testkit.Equal(t, started.Category, "mcp")
	var done event.ToolCompletedPayload
	testkit.NoError(t, c.WaitKind(t, event.ToolCompleted, time.Second).Decode(&done))
	testkit.Equal(t, done.Status, "success")
	if !strings.Contains(done.Output, "echo:hi") {
		t.Fatalf("mcp output %q", done.Output)
	}
	req := p.Requests()[0]
	var names []string
	for _, d := range req.Tools {
		names = append(names, d.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "t__echo") {
		t.Fatalf("tools offered: %v", names)
	}
}

// A server that never comes up is reported once in the session's log, not
// again when the session is started anew (after a kill, passivation or a
// restart of troupe) and runs another turn; both turns complete without it.
func TestMCPServerUnavailableReportedOncePerLog(t *testing.T) {
	p, err := llmserver.NewProvider(llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("one")),
		llmserver.Steps(llmserver.Text("two")),
	}}, llmserver.WithTest(t))
	testkit.NoError(t, err)
	rt := testkit.Boot(t, actors.Options{Engine: testkit.Engine(p, event.ToolStyleNative)})
	servers, _ := json.Marshal([]map[string]any{{"name": "gone", "command": filepath.Join(t.TempDir(), "missing"), "args": []string{}, "env": []any{}}})
	ctx := context.Background()
	testkit.NoError(t, rt.Sessions.Create(ctx, "u", event.CreatedPayload{Cwd: t.TempDir(), MCPServers: servers}))
	for i, text := range []string{"first", "second"} {
		c := testkit.NewCollector(t, rt.System)
		_, err = rt.Sessions.Subscribe(ctx, "u", 1, false, c.PID())
		testkit.NoError(t, err)
		run := testkit.Prompt(t, rt, "u", text)
		testkit.Equal(t, testkit.WaitRunEnded(t, c, run, 30*time.Second).StopReason, event.StopEndTurn)
		if i == 0 {
			testkit.NoError(t, rt.Sessions.Kill(ctx, "u"))
		}
	}
	var statuses []event.MCPStatusPayload
	testkit.NoError(t, rt.Store.Load(ctx, "u", 0, func(e event.Event) error {
		if e.Kind == event.MCPStatus {
			var p event.MCPStatusPayload
			testkit.NoError(t, json.Unmarshal(e.Payload, &p))
			statuses = append(statuses, p)
		}
		return nil
	}))
	if len(statuses) != 1 || statuses[0].Server != "gone" || statuses[0].Status != event.MCPStatusUnavailable {
		t.Fatalf("mcp.status events %+v, want one: gone unavailable", statuses)
	}
	st, err := rt.Sessions.State(ctx, "u")
	testkit.NoError(t, err)
	testkit.Equal(t, st.MCPStatus["gone"], event.MCPStatusUnavailable)
}
