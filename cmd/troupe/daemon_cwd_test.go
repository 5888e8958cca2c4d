package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// Every door checks a session's cwd the same way: ACP session/new and
// hydra-acp/session/fork refuse a file, a relative path and a directory
// that does not exist with -32602 (the request's id echoed), as REST's
// create and fork answer 400, and no session is made.
func TestDaemonCwdCheckedAtEveryDoor(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	file := filepath.Join(work, "a-file")
	testkit.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("done")))
	d := startDaemon(t, home, env, model...)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(work)
	if f := c.WaitAnswer(c.Prompt(sid, "hello")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}

	bad := []struct{ cwd, says string }{
		{file, "not a directory"},
		{filepath.Join(work, "absent"), "does not exist"},
		{"relative/dir", "not an absolute path"},
	}
	refused := func(door string, f acpclient.Frame, id int, cwd, says string) {
		t.Helper()
		if !f.Answers(id) || f.Error == nil || f.Error.Code != -32602 || !strings.Contains(f.Error.Message, says) {
			t.Fatalf("%s with cwd %q: %s, want -32602 saying %q", door, cwd, f.Raw, says)
		}
	}
	for _, b := range bad {
		cwd, says := b.cwd, b.says
		id := c.Call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
		refused("session/new", c.WaitAnswer(id), id, cwd, says)
		id = c.Call("hydra-acp/session/fork", map[string]any{"sessionId": sid, "cwd": cwd})
		refused("fork", c.WaitAnswer(id), id, cwd, says)

		if msg := wantError(t, d.do(t, "POST", "/v1/sessions", map[string]any{"cwd": cwd}), http.StatusBadRequest); !strings.Contains(msg, says) {
			t.Fatalf("REST create with cwd %q: %q", cwd, msg)
		}
		if msg := wantError(t, d.do(t, "POST", "/v1/sessions/"+sid+"/fork", map[string]any{"cwd": cwd}), http.StatusBadRequest); !strings.Contains(msg, says) {
			t.Fatalf("REST fork with cwd %q: %q", cwd, msg)
		}
	}
	var list struct{ Sessions []struct{ SessionID string } }
	d.call(t, "GET", "/v1/sessions", nil, http.StatusOK, &list)
	testkit.Equal(t, len(list.Sessions), 1)

	// A directory is taken, cleaned, at both ACP doors.
	sub := filepath.Join(work, "sub")
	testkit.NoError(t, os.Mkdir(sub, 0o700))
	var made struct{ SessionID string }
	c.WaitAnswer(c.Call("hydra-acp/session/fork", map[string]any{"sessionId": sid, "cwd": sub + "/"})).Decode(t, &made)
	var e sessionEntry
	d.call(t, "GET", "/v1/sessions/"+made.SessionID, nil, http.StatusOK, &e)
	testkit.Equal(t, e.Cwd, sub)
	c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": sub + "/.", "mcpServers": []any{}})).Decode(t, &made)
	d.call(t, "GET", "/v1/sessions/"+made.SessionID, nil, http.StatusOK, &e)
	testkit.Equal(t, e.Cwd, sub)
}
