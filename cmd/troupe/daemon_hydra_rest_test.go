package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// hydraEntry is the part of a session entry Hydra's clients read.
type hydraEntry struct {
	SessionID string    `json:"sessionId"`
	Status    string    `json:"status"`
	Title     string    `json:"title"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func (d *daemonProc) listed(t *testing.T, query string) map[string]hydraEntry {
	t.Helper()
	var list struct{ Sessions []hydraEntry }
	d.call(t, "GET", "/v1/sessions"+query, nil, http.StatusOK, &list)
	out := map[string]hydraEntry{}
	for _, e := range list.Sessions {
		out[e.SessionID] = e
	}
	return out
}

// Hydra's clients sort and filter on warm (zod refuses another word), and
// ask for ?status=warm when they poll; an unknown status is the whole
// list, as Hydra answers it.
func TestDaemonSessionsStatusWarmAndFilter(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	warm, cold := d.create(t, t.TempDir()), d.create(t, t.TempDir())
	testkit.Equal(t, d.do(t, "POST", "/v1/sessions/"+cold+"/kill", nil).StatusCode, http.StatusAccepted)

	all := d.listed(t, "")
	testkit.Equal(t, len(all), 2)
	testkit.Equal(t, all[warm].Status, "warm")
	testkit.Equal(t, all[cold].Status, "cold")

	only := d.listed(t, "?status=warm")
	if _, ok := only[warm]; len(only) != 1 || !ok {
		t.Fatalf("?status=warm: %+v", only)
	}
	only = d.listed(t, "?status=cold&includeNonInteractive=true")
	if _, ok := only[cold]; len(only) != 1 || !ok {
		t.Fatalf("?status=cold: %+v", only)
	}
	testkit.Equal(t, len(d.listed(t, "?status=live")), 2)

	var one hydraEntry
	d.call(t, "GET", "/v1/sessions/"+warm, nil, http.StatusOK, &one)
	testkit.Equal(t, one.Status, "warm")
}

// A daemon's restart is no activity: every session's updatedAt is what it
// was, whether the daemon stopped or was killed with a session live.
func TestDaemonRestartKeepsUpdatedAt(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("hello")))
	d := startDaemon(t, home, env, model...)
	c := d.dialACP(t, "editor")
	prompted, _ := c.NewSession(work)
	if f := c.WaitAnswer(c.Prompt(prompted, "hi")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	idle := d.create(t, work)
	before := d.listed(t, "?includeNonInteractive=1")
	time.Sleep(20 * time.Millisecond) // a bump would show

	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, acpWait), 0)
	d = startDaemon(t, home, env, model...)
	after := d.listed(t, "?includeNonInteractive=1")
	for _, id := range []string{prompted, idle} {
		if !after[id].UpdatedAt.Equal(before[id].UpdatedAt) {
			t.Fatalf("session %s: updatedAt %s after a stop and start, was %s", id, after[id].UpdatedAt, before[id].UpdatedAt)
		}
	}

	// Woken (attached) and killed with it live, then started again.
	d.dialACP(t, "editor").Attach(map[string]any{"sessionId": prompted, "historyPolicy": "none"})
	d.proc.Kill()
	testkit.Equal(t, d.proc.Wait(t, acpWait), -1)
	d = startDaemon(t, home, env, model...)
	d.dialACP(t, "editor").Attach(map[string]any{"sessionId": prompted, "historyPolicy": "none"})
	after = d.listed(t, "?includeNonInteractive=1")
	for _, id := range []string{prompted, idle} {
		if !after[id].UpdatedAt.Equal(before[id].UpdatedAt) {
			t.Fatalf("session %s: updatedAt %s after a kill and an attach, was %s", id, after[id].UpdatedAt, before[id].UpdatedAt)
		}
	}
}

// An extension's entry carries what Hydra's `extensions list` prints:
// restartCount, startedAt (Unix ms, null while stopped), lastExitCode and
// logPath, the file (where Hydra keeps it) its runs' stdout and stderr
// are appended to.
func TestDaemonExtensionEntryRestartCountStartedAtLogPath(t *testing.T) {
	home := t.TempDir()
	d := startDaemon(t, home, nil)
	type entry struct {
		Status       string `json:"status"`
		PID          int    `json:"pid"`
		RestartCount *int   `json:"restartCount"`
		StartedAt    *int64 `json:"startedAt"`
		LastExitCode *int   `json:"lastExitCode"`
		LogPath      string `json:"logPath"`
	}
	before := time.Now().UnixMilli()
	d.call(t, "POST", "/v1/extensions", map[string]any{"name": "echoer",
		"command": []string{"sh", "-c", "echo out-line; echo err-line >&2; exec sleep 60"}}, http.StatusCreated, nil)
	var e entry
	testkit.Eventually(t, 20*time.Second, "echoer running", func() bool {
		d.call(t, "GET", "/v1/extensions/echoer", nil, http.StatusOK, &e)
		return e.Status == "running" && e.PID != 0
	})
	if e.RestartCount == nil || *e.RestartCount != 0 || e.StartedAt == nil || *e.StartedAt < before ||
		*e.StartedAt > time.Now().UnixMilli() || e.LastExitCode != nil {
		t.Fatalf("running entry: %+v", e)
	}
	testkit.Equal(t, e.LogPath, filepath.Join(home, "extensions", "echoer", "current.log"))
	testkit.Eventually(t, 10*time.Second, "both output lines in the log file", func() bool {
		b, _ := os.ReadFile(e.LogPath)
		return strings.Contains(string(b), "out-line\n") && strings.Contains(string(b), "err-line\n")
	})

	testkit.NoError(t, syscall.Kill(e.PID, syscall.SIGKILL))
	first := e.PID
	testkit.Eventually(t, 20*time.Second, "echoer started again", func() bool {
		d.call(t, "GET", "/v1/extensions/echoer", nil, http.StatusOK, &e)
		return e.Status == "running" && e.PID != 0 && e.PID != first
	})
	if *e.RestartCount != 1 || e.LastExitCode == nil || *e.LastExitCode != -1 {
		t.Fatalf("restarted entry: %+v", e)
	}
	d.call(t, "POST", "/v1/extensions/echoer/stop", nil, http.StatusOK, &e)
	if e.StartedAt != nil || e.Status != "stopped" {
		t.Fatalf("stopped entry: %+v", e)
	}
}
