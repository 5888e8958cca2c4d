package main

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

type sessionEntry struct {
	SessionID, AgentID, Cwd, Title, Status string
	Busy, AwaitingInput                    bool
	AttachedClients                        int
}

func TestDaemonSessionsCreateListGetRetitleDelete(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	dirA, dirB := t.TempDir(), t.TempDir()
	a, b := d.create(t, dirA), d.create(t, dirB)

	var list struct{ Sessions []sessionEntry }
	d.call(t, "GET", "/v1/sessions", nil, http.StatusOK, &list)
	testkit.Equal(t, len(list.Sessions), 2)
	d.call(t, "GET", "/v1/sessions?cwd="+dirA+"&includeNonInteractive=1", nil, http.StatusOK, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != a || list.Sessions[0].Status != "warm" {
		t.Fatalf("list by cwd: %+v", list.Sessions)
	}

	testkit.Equal(t, d.do(t, "PATCH", "/v1/sessions/"+a, map[string]string{"title": "fix flaky test"}).StatusCode, http.StatusNoContent)
	var got sessionEntry
	d.call(t, "GET", "/v1/sessions/"+a, nil, http.StatusOK, &got)
	testkit.Equal(t, got.Title, "fix flaky test")
	testkit.Equal(t, got.AgentID, "troupe")

	for _, bad := range []struct {
		method, path string
		body         any
		status       int
	}{
		{"GET", "/v1/sessions/nope", nil, http.StatusNotFound},
		{"PATCH", "/v1/sessions/nope", map[string]string{"title": "x"}, http.StatusNotFound},
		{"PATCH", "/v1/sessions/" + a, map[string]string{"title": "  "}, http.StatusBadRequest},
		{"PATCH", "/v1/sessions/" + a, map[string]any{"title": "x", "regen": true}, http.StatusBadRequest},
		{"PATCH", "/v1/sessions/" + a, `{"title":`, http.StatusBadRequest},
		{"POST", "/v1/sessions", map[string]string{"cwd": "relative/dir"}, http.StatusBadRequest},
		{"POST", "/v1/sessions", map[string]string{"cwd": "/no/such/dir"}, http.StatusBadRequest},
		{"POST", "/v1/sessions", map[string]string{"agentId": "claude-acp"}, http.StatusBadRequest},
		{"POST", "/v1/sessions", `[1,2]`, http.StatusBadRequest},
		{"POST", "/v1/sessions/nope/kill", nil, http.StatusNotFound},
		{"DELETE", "/v1/sessions/nope", nil, http.StatusNotFound},
		{"GET", "/v1/sessions/nope/history", nil, http.StatusNotFound},
		{"GET", "/v1/registry", nil, http.StatusNotFound},
		{"POST", "/mcp/hydra-acp-stdin", nil, http.StatusUnauthorized}, // a capability token, not the service token
		{"POST", "/mcp/no-such-server", nil, http.StatusUnauthorized},  // the token first: no name is told from another
	} {
		wantError(t, d.do(t, bad.method, bad.path, bad.body), bad.status)
	}

	testkit.Equal(t, d.do(t, "DELETE", "/v1/sessions/"+b, nil).StatusCode, http.StatusNoContent)
	wantError(t, d.do(t, "GET", "/v1/sessions/"+b, nil), http.StatusNotFound)
	wantError(t, d.do(t, "GET", "/v1/sessions/"+b+"/history", nil), http.StatusNotFound)
	d.call(t, "GET", "/v1/sessions", nil, http.StatusOK, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != a {
		t.Fatalf("after delete: %+v", list.Sessions)
	}
	var cfg struct {
		DefaultAgent string
	}
	d.call(t, "GET", "/v1/config", nil, http.StatusOK, &cfg)
	testkit.Equal(t, cfg.DefaultAgent, "troupe")
}

// llmEnv scripts the model and returns the environment and model flags of
// the processes that use it.
func llmEnv(t *testing.T, replies ...llmserver.Reply) ([]string, []string) {
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: replies})
	return []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}, []string{"--provider", "openai", "--model", "tiny"}
}

// runPrompt runs `troupe run` on session id in home to its end.
func runPrompt(t *testing.T, home string, env, model []string, id, prompt string) (int, string) {
	t.Helper()
	args := append([]string{"run", "--home", home, "--session", id, "--yolo"}, model...)
	cmd := exec.Command(testkit.BuildTroupe(t), append(args, prompt)...)
	cmd.Env = append(cmd.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	testkit.NoError(t, err)
	return 0, string(out)
}

// A killed session is cold, its lease free for another process; a request
// brings it back live in the daemon.
func TestDaemonKillGoesColdAndBack(t *testing.T) {
	home := t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("hello there")))
	d := startDaemon(t, home, env, model...)
	id := d.create(t, t.TempDir())
	status := func() string {
		var e sessionEntry
		d.call(t, "GET", "/v1/sessions/"+id, nil, http.StatusOK, &e)
		return e.Status
	}
	testkit.Equal(t, status(), "warm")
	var agents struct {
		Agents []struct {
			ID, Installed string
			Models        []struct {
				ID      string
				Default bool
			}
		}
	}
	d.call(t, "GET", "/v1/agents", nil, http.StatusOK, &agents)
	if len(agents.Agents) != 1 || agents.Agents[0].ID != "troupe" || agents.Agents[0].Installed != "yes" ||
		len(agents.Agents[0].Models) == 0 || agents.Agents[0].Models[0].ID != "openai/tiny" || !agents.Agents[0].Models[0].Default {
		t.Fatalf("agents: %+v", agents)
	}
	testkit.Equal(t, d.do(t, "POST", "/v1/sessions/"+id+"/kill", nil).StatusCode, http.StatusAccepted)
	testkit.Equal(t, status(), "cold")
	testkit.Equal(t, d.do(t, "POST", "/v1/sessions/"+id+"/kill", nil).StatusCode, http.StatusNoContent)

	// Cold: nobody holds it, so another process may prompt it.
	if code, out := runPrompt(t, home, env, model, id, "hi"); code != 0 || !strings.Contains(out, "hello there") {
		t.Fatalf("troupe run on the cold session: exit %d\n%s", code, out)
	}
	testkit.Equal(t, d.do(t, "PATCH", "/v1/sessions/"+id, map[string]string{"title": "back"}).StatusCode, http.StatusNoContent)
	testkit.Equal(t, status(), "warm")
	lines := ndjson(t, d.do(t, "GET", "/v1/sessions/"+id+"/history", nil))
	kinds := []string{}
	for _, l := range lines {
		kinds = append(kinds, update(l)["sessionUpdate"].(string))
	}
	want := "user_message_chunk prompt_received agent_message_chunk usage_update turn_complete session_info_update"
	if got := strings.Join(kinds, " "); !strings.Contains(got, "agent_message_chunk") || !strings.HasSuffix(got, "turn_complete session_info_update") {
		t.Fatalf("history kinds %q, want like %q", got, want)
	}
}

// While the daemon hosts a session, other processes cannot write it and
// are told who holds it; once the daemon lets it go, they can.
func TestDaemonLeaseRefusesOtherProcesses(t *testing.T) {
	home := t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("done")))
	d := startDaemon(t, home, env, model...)
	id := d.create(t, t.TempDir())

	code, out := runPrompt(t, home, env, model, id, "hi")
	if code == 0 || !strings.Contains(out, "troupe daemon") {
		t.Fatalf("troupe run on a session the daemon holds: exit %d\n%s", code, out)
	}
	app := testkit.Start(t, testkit.BuildTroupe(t), nil, "append", id, "--home", home)
	_, _ = app.Stdin.Write([]byte(`{"kind":"bash.executed","payload":{"command":"true","output":"","exit_code":0}}` + "\n"))
	app.Stdin.Close()
	if code := app.Wait(t, 30*time.Second); code == 0 || !strings.Contains(app.Stderr(), "troupe daemon") {
		t.Fatalf("troupe append on a session the daemon holds: exit %d\n%s", code, app.Stderr())
	}

	testkit.Equal(t, d.do(t, "POST", "/v1/sessions/"+id+"/kill", nil).StatusCode, http.StatusAccepted)
	if code, out := runPrompt(t, home, env, model, id, "hi"); code != 0 {
		t.Fatalf("troupe run after kill: exit %d\n%s", code, out)
	}
}

// historyLines reads a session's history as raw JSON lines.
func historyLines(t *testing.T, d *daemonProc, id string) []string {
	t.Helper()
	var out []string
	for _, l := range ndjson(t, d.do(t, "GET", "/v1/sessions/"+id+"/history", nil)) {
		b, _ := json.Marshal(l)
		out = append(out, string(b))
	}
	return out
}
