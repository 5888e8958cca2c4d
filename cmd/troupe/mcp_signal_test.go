package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// slowReply streams a first word, then stalls far longer than a test.
func slowReply() llmserver.Reply {
	return llmserver.Steps(llmserver.Text("Partial"), llmserver.Delay(time.Minute), llmserver.Text(" never"))
}

// SIGTERM while session.prompt waits for its run: troupe mcp stops at
// once (130), writing nothing but JSON-RPC lines; the run is left to its
// session's crash policy.
func TestMCPStdioSignalMidPrompt(t *testing.T) {
	env, model := llmEnv(t, slowReply())
	p := stdioPeer{testkit.Start(t, testkit.BuildTroupe(t), env, append([]string{"mcp", "--home", t.TempDir()}, model...)...)}
	initialize(t, p, "2025-11-25")
	created, _ := callTool(t, p, 2, "session.create", map[string]any{"cwd": t.TempDir()}, nil)
	var sess struct {
		SessionID string `json:"session_id"`
	}
	testkit.NoError(t, json.Unmarshal(created.StructuredContent, &sess))
	p.send(t, request(t, 3, "tools/call", map[string]any{"name": "session.prompt",
		"arguments": map[string]any{"session_id": sess.SessionID, "text": "go"}, "_meta": map[string]any{"progressToken": 1}}))
	line, ok := p.p.ReadLine(mcpWait)
	if !ok || !strings.Contains(line, `"notifications/progress"`) || !strings.Contains(line, "Partial") {
		t.Fatalf("want the first progress, got %q", line)
	}
	start := time.Now()
	p.p.Signal(syscall.SIGTERM)
	if code := p.p.Wait(t, 20*time.Second); code != 130 {
		t.Errorf("exit %d after SIGTERM, want 130", code)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s to stop", d)
	}
	for line := range p.p.Lines() {
		decodeMsg(t, []byte(line))
	}
}

// SIGTERM while a POST's SSE stream waits for a prompt's run: the daemon
// ends the stream and exits 0 without waiting for the run.
func TestDaemonMCPSignalMidPrompt(t *testing.T) {
	env, model := llmEnv(t, slowReply())
	d := startDaemon(t, t.TempDir(), env, model...)
	p := &httpPeer{url: d.url, token: d.token}
	p.version = initialize(t, p, "2025-11-25")
	created, _ := callTool(t, p, 2, "session.create", map[string]any{"cwd": t.TempDir()}, nil)
	var sess struct {
		SessionID string `json:"session_id"`
	}
	testkit.NoError(t, json.Unmarshal(created.StructuredContent, &sess))
	res := p.post(t, request(t, 3, "tools/call", map[string]any{"name": "session.prompt",
		"arguments": map[string]any{"session_id": sess.SessionID, "text": "go"}, "_meta": map[string]any{"progressToken": 1}}), nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	// The headers are out once the call is read; the first progress
	// follows when the LLM's first word is committed.
	buf := make([]byte, 4096)
	var seen strings.Builder
	for !strings.Contains(seen.String(), "Partial") {
		n, err := res.Body.Read(buf)
		seen.Write(buf[:n])
		if err != nil {
			t.Fatalf("stream ended before the first progress: %v: %s", err, seen.String())
		}
	}
	start := time.Now()
	d.proc.Signal(syscall.SIGTERM)
	if code := d.proc.Wait(t, 40*time.Second); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0", code)
	}
	if el := time.Since(start); el > 15*time.Second {
		t.Errorf("took %s to stop", el)
	}
}
