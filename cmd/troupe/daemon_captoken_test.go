package main

import (
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// mcpListStatus is the status of a tools/list on the daemon's /mcp/<name>
// with header auth.
func mcpListStatus(t *testing.T, d *daemonProc, name, auth string) int {
	t.Helper()
	res := d.doWith(t, "POST", "/mcp/"+name, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		map[string]string{"Authorization": auth, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}

// sessionTokens is the Authorization header of each of the daemon's
// mcpServers entries of session id, as its log recorded them.
func sessionTokens(t *testing.T, d *daemonProc, id string, names ...string) map[string]string {
	t.Helper()
	servers := mcpServers(t, d, id)
	out := map[string]string{}
	for _, n := range names {
		s, ok := servers[n]
		if !ok || len(s.Headers) != 1 || !strings.HasPrefix(s.Headers[0].Value, "Bearer "+id+".") {
			t.Fatalf("session %s has no %s entry with its token: %+v", id, n, servers)
		}
		out[n] = s.Headers[0].Value
	}
	return out
}

// A session's capability tokens (for its stdin ring, its recall and an
// extension's tools) die with the daemon's run: the ones its log recorded
// work while that daemon runs, and are refused (401) by the next daemon
// on the same home, whose own tokens work; the session's agent still
// reaches the extension's tools after the restart, with the token the new
// daemon gave it. The tokens of a run are kept nowhere but its memory and
// the entries it recorded, so an export, a log or a copy of the store
// holds no token a later daemon takes.
func TestDaemonCapabilityTokensDieWithTheRun(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("c1", "ext__echo", `{"text":"after"}`)),
		llmserver.Steps(llmserver.Text("done")),
	}})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	args := []string{"--provider", "openai", "--model", "tiny", "--approval-mode", "yolo", "--mcp-recall"}
	home := t.TempDir()
	d := startDaemon(t, home, env, args...)
	log := d.registerPlugin(t, "extensions", "ext", map[string]string{"PLUGIN_TOOLS": "1"})
	first := d.waitRunning(t, "extensions", "ext", log, 0)
	waitProbeOf(t, log, first.PID, "mcp_tools/register")

	servers := []string{"ext", "hydra-acp-stdin", "hydra-acp-recall"}
	newSession := func() string {
		c := d.dialACP(t, "editor")
		var created struct{ SessionID string }
		c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{},
			"_meta": map[string]any{"hydra-acp": map[string]any{"mcpStdin": true}}})).Decode(t, &created)
		return created.SessionID
	}
	sid := newSession()
	old := sessionTokens(t, d, sid, servers...)
	for _, n := range servers {
		testkit.Equal(t, mcpListStatus(t, d, n, old[n]), http.StatusOK)
	}

	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, 30*time.Second), 0)
	d = startDaemon(t, home, env, args...)
	again := d.waitRunning(t, "extensions", "ext", log, first.PID)
	waitProbeOf(t, log, again.PID, "mcp_tools/register")
	for _, n := range servers {
		testkit.Equal(t, mcpListStatus(t, d, n, old[n]), http.StatusUnauthorized)
	}
	fresh := sessionTokens(t, d, newSession(), servers...)
	for _, n := range servers {
		testkit.Equal(t, mcpListStatus(t, d, n, fresh[n]), http.StatusOK)
	}

	c := d.dialACP(t, "editor")
	c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": sid}))
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "call it"))), "end_turn")
	reqs := srv.ChatRequests()
	testkit.Equal(t, len(reqs), 2)
	if want := "echo: after from " + sid; !strings.Contains(string(reqs[1].Body), want) {
		t.Fatalf("the model's request after the restart lacks %q: %s", want, reqs[1].Body)
	}
}
