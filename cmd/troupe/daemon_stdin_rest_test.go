package main

import (
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// The ring's producer routes with their status codes, file mode's
// mirror under its soft cap, and wait_for_more woken by a write.
func TestDaemonStdinRingFileModeAndLongPoll(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t)
	d := startDaemon(t, home, env, model...)
	c := d.dialACP(t, "cat")
	var created struct {
		SessionID string
		Meta      struct {
			Hydra struct{ MCPStdin bool } `json:"hydra-acp"`
		} `json:"_meta"`
	}
	c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": work, "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"mcpStdin": true, "interactive": false}}})).Decode(t, &created)
	sid := created.SessionID
	testkit.Equal(t, created.Meta.Hydra.MCPStdin, true)
	s := dialAgentMCP(t, d, sid, "hydra-acp-stdin")

	if msg := callSDKTool(t, s, "info", nil, nil); !strings.Contains(msg, "no stdin stream open") {
		t.Fatalf("info before open: %q", msg)
	}
	wantError(t, d.do(t, "POST", "/v1/sessions/nope/stdin/open", map[string]any{}), http.StatusNotFound)
	wantError(t, d.do(t, "POST", "/v1/sessions/nope/stdin", map[string]any{"chunk": b64("x")}), http.StatusNotFound)
	wantError(t, d.do(t, "POST", "/v1/sessions/"+sid+"/stdin", map[string]any{"chunk": b64("x")}), http.StatusConflict)
	wantError(t, d.do(t, "POST", "/v1/sessions/"+sid+"/stdin/open", map[string]any{"mode": "tape"}), http.StatusBadRequest)
	wantError(t, d.do(t, "POST", "/v1/sessions/"+sid+"/stdin/open", `{"mode":`), http.StatusBadRequest)

	var opened struct {
		FilePath                    string
		CapacityBytes, FileCapBytes int64
	}
	d.call(t, "POST", "/v1/sessions/"+sid+"/stdin/open", map[string]any{"mode": "file", "capacityBytes": 64, "fileCapBytes": 100}, http.StatusOK, &opened)
	if opened.CapacityBytes != 64 || opened.FileCapBytes != 100 || filepath.Dir(opened.FilePath) != filepath.Join(home, "stdin") {
		t.Fatalf("open: %+v", opened)
	}
	wantError(t, d.do(t, "POST", "/v1/sessions/"+sid+"/stdin/open", map[string]any{}), http.StatusConflict)
	wantError(t, d.do(t, "POST", "/v1/sessions/"+sid+"/stdin", map[string]any{}), http.StatusBadRequest)

	type waited struct {
		WriteCursor   int64
		EOF, TimedOut bool
	}
	var w waited
	testkit.Equal(t, callSDKTool(t, s, "wait_for_more", map[string]any{"cursor": 0, "timeoutMs": 50}, &w), "")
	if !w.TimedOut || w.WriteCursor != 0 || w.EOF {
		t.Fatalf("wait on an empty stream: %+v", w)
	}
	woken := make(chan waited, 1)
	go func() {
		var w waited
		if msg := callSDKTool(t, s, "wait_for_more", map[string]any{"cursor": 0, "timeoutMs": 120000}, &w); msg != "" {
			t.Errorf("wait_for_more: %s", msg)
		}
		woken <- w
	}()
	in := stdinInput(300)
	var wrote struct{ WriteCursor int64 }
	d.call(t, "POST", "/v1/sessions/"+sid+"/stdin", map[string]any{"chunk": b64(string(in[:150]))}, http.StatusOK, &wrote)
	testkit.Equal(t, wrote.WriteCursor, int64(150))
	// Hydra's producer sends base64; anything else is refused, not stored.
	wantError(t, d.do(t, "POST", "/v1/sessions/"+sid+"/stdin", map[string]any{"chunk": "not base64!"}), http.StatusBadRequest)
	if w := <-woken; w.WriteCursor < 150 || w.TimedOut {
		t.Fatalf("woken: %+v", w)
	}
	d.call(t, "POST", "/v1/sessions/"+sid+"/stdin", map[string]any{"chunk": b64(string(in[150:])), "eof": true}, http.StatusOK, &wrote)
	testkit.Equal(t, wrote.WriteCursor, int64(300))
	wantError(t, d.do(t, "POST", "/v1/sessions/"+sid+"/stdin", map[string]any{"chunk": b64("late")}), http.StatusConflict)

	var info stdinInfo
	testkit.Equal(t, callSDKTool(t, s, "info", nil, &info), "")
	if info.Mode != "file" || info.StartCursor != 0 || info.WriteCursor != 300 || info.EvictedBytes != 300-64-100 || !info.EOF || info.FilePath != opened.FilePath {
		t.Fatalf("info: %+v", info)
	}
	mirror, err := os.ReadFile(opened.FilePath)
	testkit.NoError(t, err)
	testkit.Equal(t, string(mirror), string(in[:100]))

	// From the file up to its cap, then a gap to the ring's 64 bytes.
	var r stdinRead
	testkit.Equal(t, callSDKTool(t, s, "read", map[string]any{"cursor": 10}, &r), "")
	if r.Cursor != 10 || r.NextCursor != 100 || r.Data != string(in[10:100]) || r.Gap != nil || r.EOF {
		t.Fatalf("read from the mirror: %+v", r)
	}
	testkit.Equal(t, callSDKTool(t, s, "read", map[string]any{"cursor": r.NextCursor}, &r), "")
	if r.Gap == nil || r.Gap.From != 100 || r.Gap.To != 236 || r.Cursor != 236 || r.Data != string(in[236:]) || !r.EOF {
		t.Fatalf("read across the gap: %+v", r)
	}
	if msg := callSDKTool(t, s, "read", map[string]any{"cursor": -1}, nil); !strings.Contains(msg, "negative") {
		t.Fatalf("negative cursor: %q", msg)
	}
}

// b64 is a stdin chunk as producers send it (Hydra's cat: base64).
func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
