package main

import (
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

type recallEntries struct {
	Entries []struct {
		Entry                                            int
		Role, Text, ToolName, ToolCallID, Output, Status string
	}
	Total int
	Note  string
}

// /mcp/hydra-acp-recall serves the calling session's entries from before
// its last compaction, and only with that session's capability token.
func TestDaemonRecallServesPreCompactionHistory(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t)
	d := startDaemon(t, home, env, append(model, "--mcp-recall")...)
	c := d.dialACP(t, "tui")
	sid, _ := c.NewSession(work)
	s := dialAgentMCP(t, d, sid, "hydra-acp-recall")

	var out recallEntries
	testkit.Equal(t, callSDKTool(t, s, "range", map[string]any{"from_entry": 0, "to_entry": 5}, &out), "")
	if !strings.Contains(out.Note, "no compacted history yet") || len(out.Entries) != 0 {
		t.Fatalf("before any compaction: %+v", out)
	}

	// The log of a conversation that was compacted, then went on.
	d.call(t, "POST", "/v1/sessions/"+sid+"/kill", nil, http.StatusAccepted, nil)
	events := strings.Join([]string{
		`{"kind":"prompt.queued","payload":{"message_id":"m1","delivery":"prompt","content":[{"type":"text","text":"find the Flaky test"}]}}`,
		`{"kind":"run.started","payload":{"run_id":"m1"}}`,
		`{"kind":"tool.started","payload":{"run_id":"m1","tool_call_id":"c1","name":"grep","category":"info","arguments":"{\"pattern\":\"flaky\"}","origin":"native","message_id":"a1"}}`,
		`{"kind":"tool.completed","payload":{"run_id":"m1","tool_call_id":"c1","name":"grep","status":"success","output":"x_test.go:12 flaky","duration_ms":3}}`,
		`{"kind":"message.completed","payload":{"run_id":"m1","message_id":"a2","text":"It is TestRetry in x_test.go, a flaky sleep."}}`,
		`{"kind":"run.ended","payload":{"run_id":"m1","stop_reason":"end_turn","usage":{}}}`,
		`{"kind":"compaction.started","payload":{"reason":"manual"}}`,
		`{"kind":"compaction.ended","payload":{"reason":"manual","summary":"looked for a flaky test"}}`,
		`{"kind":"prompt.queued","payload":{"message_id":"m2","delivery":"prompt","content":[{"type":"text","text":"after the flaky compaction"}]}}`,
	}, "\n") + "\n"
	cmd := exec.Command(testkit.BuildTroupe(t), "append", sid, "--home", home)
	cmd.Stdin = strings.NewReader(events)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("append: %v\n%s", err, b)
	}

	var hits struct {
		Matches []struct {
			Entry         int
			Role, Snippet string
		}
	}
	testkit.Equal(t, callSDKTool(t, s, "search", map[string]any{"query": "FLAKY"}, &hits), "")
	if len(hits.Matches) != 2 || hits.Matches[0].Entry != 0 || hits.Matches[0].Role != "user" ||
		hits.Matches[1].Entry != 2 || !strings.Contains(hits.Matches[1].Snippet, "flaky sleep") {
		t.Fatalf("search: %+v", hits)
	}
	testkit.Equal(t, callSDKTool(t, s, "search", map[string]any{"query": "flaky", "include_tool_calls": true, "limit": 10}, &hits), "")
	testkit.Equal(t, len(hits.Matches), 3)

	testkit.Equal(t, callSDKTool(t, s, "range", map[string]any{"from_entry": 1, "to_entry": 9}, &out), "")
	if out.Total != 3 || len(out.Entries) != 2 || out.Entries[0].Role != "tool" || out.Entries[0].Output != "x_test.go:12 flaky" ||
		out.Entries[1].Text != "It is TestRetry in x_test.go, a flaky sleep." {
		t.Fatalf("range: %+v", out)
	}
	testkit.Equal(t, callSDKTool(t, s, "tool_calls", map[string]any{"tool_name": "grep"}, &out), "")
	if len(out.Entries) != 1 || out.Entries[0].ToolCallID != "c1" || out.Entries[0].Status != "success" {
		t.Fatalf("tool_calls: %+v", out)
	}
	testkit.Equal(t, callSDKTool(t, s, "tool_calls", map[string]any{"tool_name": "bash"}, &out), "")
	testkit.Equal(t, len(out.Entries), 0)
	if msg := callSDKTool(t, s, "range", map[string]any{"from_entry": 3, "to_entry": 1}, nil); !strings.Contains(msg, "from_entry") {
		t.Fatalf("bad range: %q", msg)
	}

	// Without the capability token, or with the service token: refused
	// in the REST error shape.
	for _, auth := range []string{"", "Bearer " + d.token, "Bearer " + sid + ".forged"} {
		res := d.doWith(t, "POST", "/mcp/hydra-acp-recall", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			map[string]string{"Authorization": auth, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
		if msg := wantError(t, res, http.StatusUnauthorized); !strings.Contains(msg, "capability token") {
			t.Fatalf("auth %q: %s", auth, msg)
		}
		_, _ = io.Copy(io.Discard, res.Body)
	}
}
