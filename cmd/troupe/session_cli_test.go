package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A person's day with the daemon, through the real binaries: start it in
// the background, make a session, prompt it (the text as an argument,
// then from stdin), list it, stop the daemon (nothing of it left in
// /proc), start it again and read the whole conversation back.
func TestSessionCLIDaemonStartPromptStopStartTranscript(t *testing.T) {
	adoptOrphans(t)
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("hello "), llmserver.Text("there")),
		llmserver.Steps(llmserver.Text("the second answer")))
	env = append(env, "TROUPE_HOME="+home)

	out := cli(t, env, "", append([]string{"daemon", "start", "--listen", "127.0.0.1:0"}, model...)...).ok(t, "daemon start")
	pid := reapedDaemon(t, home)
	if !strings.HasPrefix(out, "troupe daemon: listening on http://127.0.0.1:") {
		t.Fatalf("daemon start printed %q", out)
	}
	// Detached: its own session and process group, no terminal.
	testkit.Equal(t, testkit.ProcessGroup(t, pid), pid)
	again := cli(t, env, "", "daemon", "start", "--listen", "127.0.0.1:0").ok(t, "second daemon start")
	if !strings.Contains(again, "already running") || !strings.Contains(again, strings.TrimSpace(strings.TrimPrefix(out, "troupe daemon: listening on "))) {
		t.Fatalf("second start printed %q, want the running one", again)
	}
	testkit.Equal(t, daemonPID(t, home), pid)

	id := strings.TrimSpace(cli(t, env, "", "session", "new", "--cwd", work, "--title", "greetings", "--model", "openai/tiny").ok(t, "session new"))
	testkit.Equal(t, cli(t, env, "", "session", "prompt", id, "say", "hello").ok(t, "session prompt"), "hello there\n")
	testkit.Equal(t, cli(t, env, "and again?\n", "session", "prompt", id, "-").ok(t, "session prompt -"), "the second answer\n")

	table := cli(t, env, "", "session", "list").ok(t, "session list")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	testkit.Equal(t, len(lines), 2)
	for _, col := range []string{"ID", "TITLE", "STATUS", "BUSY", "INPUT", "CLIENTS", "MODEL", "UPDATED"} {
		if !strings.Contains(lines[0], col) {
			t.Fatalf("list header %q lacks %s", lines[0], col)
		}
	}
	row := strings.Fields(lines[1])
	testkit.Equal(t, row[0], id)
	testkit.Equal(t, row[1], "greetings")
	testkit.Equal(t, row[2], "warm")
	testkit.Equal(t, row[6], "openai/tiny")
	var entries []sessionInfo
	testkit.NoError(t, json.Unmarshal([]byte(cli(t, env, "", "session", "list", "--json").ok(t, "list --json")), &entries))
	testkit.Equal(t, len(entries), 1)
	testkit.Equal(t, entries[0].SessionID, id)
	testkit.Equal(t, entries[0].Cwd, work)

	status := cli(t, env, "", "daemon", "status").ok(t, "daemon status")
	for _, want := range []string{"pid       " + itoa(pid), "uptime", "version", "1 live, 0 cold"} {
		if !strings.Contains(status, want) {
			t.Fatalf("status %q lacks %q", status, want)
		}
	}

	var st daemonStatus
	testkit.NoError(t, json.Unmarshal([]byte(cli(t, env, "", "daemon", "status", "--json").ok(t, "status --json")), &st))
	testkit.Equal(t, st.Running && st.PID == pid && st.Live == 1 && st.Cold == 0 && st.Version != "" && !st.StartedAt.IsZero(), true)

	stopped := cli(t, env, "", "daemon", "stop").ok(t, "daemon stop")
	testkit.Equal(t, stopped, "troupe daemon: stopped (pid "+itoa(pid)+")\n")
	// Reaped here (this test adopted it): a clean, ordered exit.
	var ws syscall.WaitStatus
	got, err := syscall.Wait4(pid, &ws, 0, nil)
	testkit.NoError(t, err)
	testkit.Equal(t, got, pid)
	testkit.Equal(t, ws.Exited() && ws.ExitStatus() == 0, true)
	if _, err := os.Stat("/proc/" + itoa(pid)); !os.IsNotExist(err) {
		t.Fatalf("pid %d still in /proc: %v", pid, err)
	}
	if left := descendants(pid); len(left) > 0 {
		t.Fatalf("processes of the daemon left: %v", left)
	}
	for _, f := range []string{"daemon.pid", "daemon.addr"} {
		if _, err := os.Stat(home + "/" + f); !os.IsNotExist(err) {
			t.Fatalf("%s left after stop: %v", f, err)
		}
	}
	testkit.Equal(t, cli(t, env, "", "daemon", "status").code, 3)

	cli(t, env, "", append([]string{"daemon", "start", "--listen", "127.0.0.1:0"}, model...)...).ok(t, "daemon start again")
	reapedDaemon(t, home)
	transcript := cli(t, env, "", "session", "transcript", id).ok(t, "session transcript")
	at := 0
	for _, want := range []string{"say hello", "hello there", "and again?", "the second answer"} {
		i := strings.Index(transcript[at:], want)
		if i < 0 {
			t.Fatalf("transcript lacks %q after offset %d:\n%s", want, at, transcript)
		}
		at += i + len(want)
	}
	if !strings.Contains(cli(t, env, "", "daemon", "status").ok(t, "status"), "0 live, 1 cold") {
		t.Fatal("the session is not cold after the restart")
	}
	cli(t, env, "", "daemon", "stop").ok(t, "daemon stop")
}

func itoa(n int) string { return strconv.Itoa(n) }
