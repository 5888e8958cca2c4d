package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// sseEvent is one event of an SSE stream: its id and data.
type sseEvent struct{ id, data string }

// nextSSEEvent reads one event; ok is false at the stream's end.
func nextSSEEvent(r *bufio.Reader) (e sseEvent, ok bool) {
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "id:"):
			e.id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			e.data += strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
		case line == "" && (e.id != "" || e.data != ""):
			return e, true
		}
		if err != nil {
			return e, false
		}
	}
}

// A client whose POST stream drops mid-prompt resumes it with GET and
// Last-Event-ID: it gets the progress it missed, then the answer, each
// once (the spec's resumability; the events are kept in memory).
func TestDaemonMCPResumeStream(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("one "), llmserver.Delay(400*time.Millisecond),
		llmserver.Text("two "), llmserver.Delay(400*time.Millisecond), llmserver.Text("three")))
	d := startDaemon(t, t.TempDir(), env, model...)
	p := &httpPeer{url: d.url, token: d.token}
	p.version = initialize(t, p, "2025-11-25")
	created, _ := callTool(t, p, 2, "session.create", map[string]any{"cwd": t.TempDir()}, nil)
	var sess struct {
		SessionID string `json:"session_id"`
	}
	testkit.NoError(t, json.Unmarshal(created.StructuredContent, &sess))

	res := p.post(t, request(t, 3, "tools/call", map[string]any{"name": "session.prompt",
		"arguments": map[string]any{"session_id": sess.SessionID, "text": "count"}, "_meta": map[string]any{"progressToken": "c"}}), nil)
	r := bufio.NewReader(res.Body)
	var last string
	var progress []string
	for {
		e, ok := nextSSEEvent(r)
		if !ok {
			t.Fatal("the POST stream ended before the first progress")
		}
		last = e.id
		if strings.Contains(e.data, "notifications/progress") {
			progress = append(progress, e.data)
			break
		}
	}
	res.Body.Close() // the connection drops

	// Until the daemon notices the drop the stream still has its reader,
	// and a resume is 409; a client retries, as after any failed connect.
	resume := func() *http.Response {
		req, err := http.NewRequest(http.MethodGet, d.url+"/mcp", nil)
		testkit.NoError(t, err)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", "Bearer "+d.token)
		req.Header.Set("Mcp-Session-Id", p.session)
		req.Header.Set("MCP-Protocol-Version", p.version)
		req.Header.Set("Last-Event-ID", last)
		res, err := http.DefaultClient.Do(req)
		testkit.NoError(t, err)
		return res
	}
	res = resume()
	for deadline := time.Now().Add(10 * time.Second); res.StatusCode == http.StatusConflict && time.Now().Before(deadline); {
		res.Body.Close()
		time.Sleep(20 * time.Millisecond)
		res = resume()
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("resume: status %d", res.StatusCode)
	}
	r = bufio.NewReader(res.Body)
	var answer mcpMsg
	for answer.ID == nil {
		e, ok := nextSSEEvent(r)
		if !ok {
			t.Fatalf("the resumed stream ended without the answer; progress %q", progress)
		}
		if e.data == "" {
			continue
		}
		m := decodeMsg(t, []byte(e.data))
		if m.Method == "notifications/progress" {
			progress = append(progress, e.data)
			continue
		}
		answer = m
	}
	var streamed strings.Builder
	for _, p := range progress {
		var n struct {
			Params struct{ Message string } `json:"params"`
		}
		testkit.NoError(t, json.Unmarshal([]byte(p), &n))
		streamed.WriteString(n.Params.Message)
	}
	var out toolResult
	testkit.NoError(t, json.Unmarshal(answer.Result, &out))
	if string(answer.ID) != "3" || out.Content[0].Text != "one two three" || streamed.String() != "one two three" {
		t.Errorf("answer %s %s; streamed %q", answer.ID, answer.Result, streamed.String())
	}
}
