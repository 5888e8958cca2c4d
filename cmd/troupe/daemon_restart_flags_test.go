package main

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/pidfile"
	"github.com/troupehq/troupe/testkit"
)

// `troupe daemon restart` without flags restarts with the running
// daemon's: one on an ephemeral loopback port comes back on one (not on
// the default 55514), with its other settings; a flag given anew
// replaces its recorded value, the others stay. The API key is never
// written to the pid file, and the restart says it must be given again.
func TestDaemonRestartKeepsItsFlags(t *testing.T) {
	adoptOrphans(t)
	home := t.TempDir()
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=", "OPENAI_API_KEY="}
	cli(t, env, "", "daemon", "start", "--listen", "127.0.0.1:0", "--approval-mode", "yolo", "--api-key", "sekrit-key").ok(t, "daemon start")
	first := reapedDaemon(t, home)
	rec := pidRecord(t, home)
	if !slices.Contains(rec.Args, "--listen=127.0.0.1:0") || !slices.Contains(rec.Args, "--approval-mode=yolo") || !slices.Equal(rec.Withheld, []string{"api-key"}) {
		t.Fatalf("pid file's record: %+v", rec)
	}
	raw, err := os.ReadFile(filepath.Join(home, "daemon.pid"))
	testkit.NoError(t, err)
	if strings.Contains(string(raw), "sekrit-key") {
		t.Fatalf("the pid file holds the API key: %s", raw)
	}

	r := cli(t, env, "", "daemon", "restart")
	r.ok(t, "daemon restart")
	second := reapedDaemon(t, home)
	if second == first {
		t.Fatalf("restart: the same pid %d", second)
	}
	if !strings.Contains(r.stderr, "--api-key") || !strings.Contains(r.stderr, "give it again") {
		t.Fatalf("restart does not say the API key was not kept: %q", r.stderr)
	}
	after := pidRecord(t, home)
	u := daemonURL(t, home)
	if u.Hostname() != "127.0.0.1" || u.Port() == "55514" || after.Port == 55514 {
		t.Fatalf("restarted on %s (record %+v): not an ephemeral loopback port", u, after)
	}
	if !slices.Contains(after.Args, "--listen=127.0.0.1:0") || !slices.Contains(after.Args, "--approval-mode=yolo") {
		t.Fatalf("restarted daemon's flags: %+v", after.Args)
	}

	// A flag given anew replaces its recorded value; the rest stay.
	cli(t, env, "", "daemon", "restart", "--approval-mode", "default").ok(t, "daemon restart --approval-mode")
	reapedDaemon(t, home)
	again := pidRecord(t, home)
	if !slices.Contains(again.Args, "--listen=127.0.0.1:0") || !slices.Contains(again.Args, "--approval-mode=default") || slices.Contains(again.Args, "--approval-mode=yolo") {
		t.Fatalf("restart with a new flag: %+v", again.Args)
	}
	if u := daemonURL(t, home); u.Port() == "55514" {
		t.Fatalf("restart with a new flag listens on %s", u)
	}
	cli(t, env, "", "daemon", "stop").ok(t, "daemon stop")
}

func pidRecord(t *testing.T, home string) pidfile.Info {
	t.Helper()
	info, held, err := pidfile.ReadInfo(filepath.Join(home, "daemon.pid"))
	testkit.NoError(t, err)
	if !held {
		t.Fatalf("no daemon holds %s/daemon.pid", home)
	}
	return info
}

func daemonURL(t *testing.T, home string) *url.URL {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "daemon.addr"))
	testkit.NoError(t, err)
	u, err := url.Parse(strings.TrimSpace(string(b)))
	testkit.NoError(t, err)
	return u
}
