package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A prompt over /mcp whose tool call needs approval: the MCP caller hears
// that it waits (a progress message), a client attached over /acp gets
// the permission request and allows it, and the MCP call answers the
// run's reply. One session, two protocols.
func TestDaemonMCPPromptApprovedOverACP(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.ToolCall("c1", "bash", `{"command":"echo asked"}`)),
		llmserver.Steps(llmserver.Text("done")))
	d := startDaemon(t, t.TempDir(), env, model...)
	p := &httpPeer{url: d.url, token: d.token}
	p.version = initialize(t, p, "2025-11-25")
	created, _ := callTool(t, p, 2, "session.create", map[string]any{"cwd": t.TempDir()}, nil)
	var sess struct {
		SessionID string `json:"session_id"`
	}
	testkit.NoError(t, json.Unmarshal(created.StructuredContent, &sess))
	a := d.dialACP(t, "editor")
	a.Attach(map[string]any{"sessionId": sess.SessionID, "historyPolicy": "none"})

	res := p.post(t, request(t, 3, "tools/call", map[string]any{"name": "session.prompt",
		"arguments": map[string]any{"session_id": sess.SessionID, "text": "run it"}, "_meta": map[string]any{"progressToken": "a"}}), nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	asked := a.Until(func(f acpclient.Frame) bool { return f.Method == "session/request_permission" })
	a.AnswerPermission(asked[len(asked)-1].ID, "allow_once")

	msgs := readMessages(t, res)
	var progress strings.Builder
	for _, m := range msgs[:len(msgs)-1] {
		progress.Write(m.Params)
	}
	answer := msgs[len(msgs)-1]
	var out toolResult
	testkit.NoError(t, json.Unmarshal(answer.Result, &out))
	if out.IsError || out.Content[0].Text != "done" {
		t.Errorf("answer %s", answer.Result)
	}
	if !strings.Contains(progress.String(), "waiting for approval of bash") {
		t.Errorf("no progress said it waits for approval: %s", progress.String())
	}
}
