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

// A session `troupe run` is running is served read-only by the daemon:
// reads work, writes are refused naming the holder.
func TestDaemonServesOtherProcessesSessionsReadOnly(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	side := filepath.Join(work, "side.txt")
	env, model := llmEnv(t, bashStep(1, side, "sleep 3"), llmserver.Steps(llmserver.Text("slept")))
	d := startDaemon(t, home, env, model...)
	id := d.create(t, work)
	d.do(t, "POST", "/v1/sessions/"+id+"/kill", nil)

	args := append([]string{"run", "--json", "--home", home, "--session", id, "--yolo"}, model...)
	run := testkit.Start(t, testkit.BuildTroupe(t), env, append(args, "sleep a bit")...)
	decodeEvents(t, run, toolStarted("call-1"))

	var e sessionEntry
	d.call(t, "GET", "/v1/sessions/"+id, nil, http.StatusOK, &e)
	testkit.Equal(t, e.Status, "warm")
	if lines := ndjson(t, d.do(t, "GET", "/v1/sessions/"+id+"/history", nil)); len(lines) < 3 {
		t.Fatalf("history of the running session: %v", lines)
	}
	for _, w := range []struct {
		method, path string
		body         any
	}{
		{"PATCH", "/v1/sessions/" + id, map[string]string{"title": "mine"}},
		{"POST", "/v1/sessions/" + id + "/kill", nil},
		{"DELETE", "/v1/sessions/" + id, nil},
	} {
		if msg := wantError(t, d.do(t, w.method, w.path, w.body), http.StatusConflict); !strings.Contains(msg, "troupe run") {
			t.Fatalf("%s %s: error %q does not name the holder", w.method, w.path, msg)
		}
	}
	testkit.Equal(t, run.Wait(t, 60*time.Second), 0)
	// The lease is free: the daemon may write now.
	testkit.Equal(t, d.do(t, "PATCH", "/v1/sessions/"+id, map[string]string{"title": "mine"}).StatusCode, http.StatusNoContent)
}

// SIGTERM: open streams end, the address file goes, the exit is clean.
func TestDaemonStopsOnSIGTERM(t *testing.T) {
	home := t.TempDir()
	d := startDaemon(t, home, nil)
	id := d.create(t, t.TempDir())
	f := follow(t, d, id)
	d.proc.Signal(syscall.SIGTERM)
	for range f.lines {
	}
	testkit.Equal(t, d.proc.Wait(t, 30*time.Second), 0)
	if _, err := os.Stat(filepath.Join(home, "daemon.addr")); !os.IsNotExist(err) {
		t.Fatalf("daemon.addr left behind: %v", err)
	}
	// The session was recorded cold: a new daemon reads it so.
	d = startDaemon(t, home, nil)
	var e sessionEntry
	d.call(t, "GET", "/v1/sessions/"+id, nil, http.StatusOK, &e)
	testkit.Equal(t, e.Status, "cold")
}
