package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// A daemon that does not stop (here: SIGSTOPped, so SIGTERM waits) is
// SIGKILLed after --timeout, named; its pid file is cleaned and a new
// start works. A daemon killed -9 leaves a stale pid file that status
// and stop recognise.
func TestDaemonStopKillsAfterTimeoutAndStalePidFile(t *testing.T) {
	adoptOrphans(t)
	home := t.TempDir()
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=", "OPENAI_API_KEY="}
	started := cli(t, env, "", "daemon", "start", "--listen", "127.0.0.1:0")
	started.ok(t, "daemon start")
	// No model configured: said on the terminal (the daemon's own warning
	// goes to its log), naming every way to configure one.
	if !strings.Contains(started.stderr, "no model resolves") || !strings.Contains(started.stderr, "OPENAI_BASE_URL") || !strings.Contains(started.stderr, "--provider") {
		t.Fatalf("daemon start without a model: stderr %q", started.stderr)
	}
	pid := reapedDaemon(t, home)
	testkit.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	r := cli(t, env, "", "daemon", "stop", "--timeout", "300ms")
	testkit.Equal(t, r.ok(t, "daemon stop"), "troupe daemon: killed (pid "+itoa(pid)+")\n")
	if !strings.Contains(r.stderr, "did not stop within 300ms (--timeout); sending SIGKILL") {
		t.Fatalf("stop's stderr %q does not name the timeout", r.stderr)
	}
	var ws syscall.WaitStatus
	_, err := syscall.Wait4(pid, &ws, 0, nil)
	testkit.NoError(t, err)
	testkit.Equal(t, ws.Signaled() && ws.Signal() == syscall.SIGKILL, true)
	if _, err := os.Stat(filepath.Join(home, "daemon.pid")); !os.IsNotExist(err) {
		t.Fatalf("pid file left after the kill: %v", err)
	}

	cli(t, env, "", "daemon", "restart", "--listen", "127.0.0.1:0").ok(t, "daemon restart when stopped")
	pid = reapedDaemon(t, home)
	testkit.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	_, err = syscall.Wait4(pid, &ws, 0, nil)
	testkit.NoError(t, err)
	r = cli(t, env, "", "daemon", "status")
	testkit.Equal(t, r.code, 3)
	if !strings.Contains(r.stdout, "not running") || !strings.Contains(r.stdout, "troupe daemon start") {
		t.Fatalf("status of a killed daemon: %q", r.stdout)
	}
	testkit.Equal(t, cli(t, env, "", "daemon", "stop").ok(t, "stop with a stale pid file"),
		"troupe daemon: not running (removed the stale pid file of pid "+itoa(pid)+")\n")
	testkit.Equal(t, cli(t, env, "", "daemon", "stop").ok(t, "stop again"), "troupe daemon: not running on "+home+"\n")

	// restart of a running daemon: a new process answers.
	cli(t, env, "", "daemon", "start", "--listen", "127.0.0.1:0").ok(t, "daemon start")
	first := reapedDaemon(t, home)
	out := cli(t, env, "", "daemon", "restart", "--listen", "127.0.0.1:0").ok(t, "daemon restart")
	second := reapedDaemon(t, home)
	if second == first || !strings.Contains(out, "stopped (pid "+itoa(first)+")") || !strings.Contains(out, "listening on") {
		t.Fatalf("restart: pids %d then %d, printed %q", first, second, out)
	}
	log, err := os.ReadFile(filepath.Join(home, "daemon.log"))
	testkit.NoError(t, err)
	if strings.Count(string(log), "troupe daemon: listening on") != 4 {
		t.Fatalf("daemon.log does not hold each start's line:\n%s", log)
	}
	cli(t, env, "", "daemon", "stop").ok(t, "daemon stop")
}

// A second daemon on a home refuses to start, naming the running one;
// start with a bad flag fails at once, in one place.
func TestDaemonOnePerHome(t *testing.T) {
	home := t.TempDir()
	d := startDaemon(t, home, nil)
	r := cli(t, nil, "", "daemon", "--home", home, "--listen", "127.0.0.1:0")
	testkit.Equal(t, r.code, 1)
	if !strings.Contains(r.stderr, "already runs on "+home) || !strings.Contains(r.stderr, itoa(d.proc.Pid())) {
		t.Fatalf("second daemon: %q", r.stderr)
	}
	// daemon start finds the running (foreground) one.
	out := cli(t, nil, "", "daemon", "start", "--home", home).ok(t, "daemon start")
	testkit.Equal(t, out, "troupe daemon: already running on "+d.url+" (pid "+itoa(d.proc.Pid())+")\n")
	r = cli(t, nil, "", "daemon", "start", "--home", t.TempDir(), "--no-such-flag")
	testkit.Equal(t, r.code, 2)
	// A daemon that exits at once: start says so with what its log says.
	r = cli(t, nil, "", "daemon", "start", "--home", t.TempDir(), "--listen", "192.0.2.1:1")
	testkit.Equal(t, r.code, 1)
	if !strings.Contains(r.stderr, "exited before it answered (exit status 2)") || !strings.Contains(r.stderr, "refusing to listen on 192.0.2.1:1 without TLS") {
		t.Fatalf("start of a daemon that cannot listen: %q", r.stderr)
	}
}

// Two starts at once on one home: one daemon runs, both commands succeed
// and name it.
func TestDaemonConcurrentStarts(t *testing.T) {
	adoptOrphans(t)
	home := t.TempDir()
	env := []string{"TROUPE_HOME=" + home}
	bin := testkit.BuildTroupe(t)
	outs := make(chan cliResult, 2)
	for range 2 {
		go func() { outs <- cliNoFatal(bin, env, "daemon", "start", "--listen", "127.0.0.1:0") }()
	}
	a, b := <-outs, <-outs
	pid := reapedDaemon(t, home)
	for _, r := range []cliResult{a, b} {
		if r.code != 0 || !strings.Contains(r.stdout, "(pid "+itoa(pid)+")") {
			t.Fatalf("concurrent start: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	}
	if strings.Contains(a.stdout, "already") == strings.Contains(b.stdout, "already") {
		t.Fatalf("want one start and one already running: %q, %q", a.stdout, b.stdout)
	}
	cli(t, env, "", "daemon", "stop").ok(t, "daemon stop")
}

// daemon start --foreground is the daemon in the terminal: it serves,
// holds the pid file, and stops on SIGTERM.
func TestDaemonStartForeground(t *testing.T) {
	home := t.TempDir()
	p := testkit.Start(t, testkit.BuildTroupe(t), nil, "daemon", "start", "--foreground", "--home", home, "--listen", "127.0.0.1:0")
	testkit.Eventually(t, 20*time.Second, "the daemon answering", func() bool {
		r := cli(t, nil, "", "daemon", "status", "--home", home)
		return r.code == 0 && strings.Contains(r.stdout, "pid       "+itoa(p.Cmd.Process.Pid))
	})
	p.Signal(syscall.SIGTERM)
	testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
	if _, err := os.Stat(filepath.Join(home, "daemon.pid")); !os.IsNotExist(err) {
		t.Fatalf("pid file left: %v", err)
	}
}
