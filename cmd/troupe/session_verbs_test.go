package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// The verbs past list/new/prompt/transcript through the real binary, on
// one daemon: diff, search, title, fork, export/import, kill, rm, a
// prompt cancelled from another shell (exit 130), and the queue: listed,
// edited and cancelled by message id.
func TestSessionCLIVerbs(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.ToolCall("c1", "write", toolArgs(t, map[string]string{"path": "f.txt", "content": "one\ntwo\n"}))),
		llmserver.Steps(llmserver.Text("wrote it")),
		llmserver.Steps(llmserver.Text("slow "), llmserver.Delay(20*time.Second), llmserver.Text("never")),
		llmserver.Steps(llmserver.Text("working "), llmserver.Delay(20*time.Second), llmserver.Text("never")),
	)
	startDaemon(t, home, env, append(model, "--approval-mode", "yolo")...)
	env = append(env, "TROUPE_HOME="+home)
	run := func(stdin string, args ...string) string {
		t.Helper()
		return cli(t, env, stdin, append([]string{"session"}, args...)...).ok(t, strings.Join(args, " "))
	}
	id := strings.TrimSpace(run("", "new", "--cwd", work))

	// After "--" the words are the prompt's, flag-like or not.
	r := cli(t, env, "", "session", "prompt", id, "--", "write", "f.txt", "--url", "-x")
	testkit.Equal(t, r.ok(t, "prompt"), "wrote it\n")
	// The rest of the turn is on stderr, plain: the call's line, the end.
	if !strings.Contains(r.stderr, "  ✓ write f.txt ") || !strings.HasSuffix(r.stderr, "── end_turn\n") || strings.Contains(r.stderr, "\x1b") {
		t.Fatalf("prompt's stderr does not show the tool call: %q", r.stderr)
	}
	diff := run("", "diff", id)
	for _, want := range []string{"=== " + filepath.Join(work, "f.txt") + " (created)", "+one", "+two"} {
		if !strings.Contains(diff, want) {
			t.Fatalf("diff lacks %q:\n%s", want, diff)
		}
	}
	if !strings.Contains(run("", "search", "wrote"), id) {
		t.Fatal("search does not find the reply")
	}
	// A search that finds nothing says so (on stderr: stdout stays a table).
	if none := cli(t, env, "", "session", "search", "zzz-nowhere"); none.code != 0 || none.stdout != "" || !strings.Contains(none.stderr, `no session mentions "zzz-nowhere"`) {
		t.Fatalf("an empty search: %d %q %q", none.code, none.stdout, none.stderr)
	}
	if !strings.Contains(run("", "search", "--", "write f.txt --url -x"), id) {
		t.Fatal("the prompt's words after -- were not sent as they are")
	}
	var diffs []fileDiff
	testkit.NoError(t, json.Unmarshal([]byte(run("", "diff", id, "--json", "--fold")), &diffs))
	testkit.Equal(t, len(diffs), 1)
	testkit.Equal(t, diffs[0].Path, filepath.Join(work, "f.txt"))
	if !strings.Contains(run("", "search", "--json", "wrote"), `"sessionId":"`+id+`"`) {
		t.Fatal("search --json does not name the session")
	}
	if !strings.Contains(run("", "list", "--cwd", work), id) || strings.Contains(run("", "list", "--cwd", t.TempDir()), id) {
		t.Fatal("list --cwd does not filter by directory")
	}
	if !strings.Contains(run("", "export", id), `"sessionId":"`+id+`"`) {
		t.Fatal("export to stdout is not the bundle")
	}
	testkit.Equal(t, run("", "title", id, "the", "writer"), "")
	if !strings.Contains(run("", "list"), "the writer") {
		t.Fatal("list does not show the new title")
	}

	fork := strings.TrimSpace(run("", "fork", id))
	if fork == "" || fork == id {
		t.Fatalf("fork printed %q", fork)
	}
	bundle := filepath.Join(t.TempDir(), "fork.hydra")
	testkit.Equal(t, run("", "export", fork, "-o", bundle), "")
	var b struct {
		Session struct {
			SessionID string `json:"sessionId"`
		} `json:"session"`
	}
	raw, err := os.ReadFile(bundle)
	testkit.NoError(t, err)
	testkit.NoError(t, json.Unmarshal(raw, &b))
	testkit.Equal(t, b.Session.SessionID, fork)
	// The same lineage is here: import says so and how to replace it.
	clash := cli(t, env, "", "session", "import", bundle)
	if clash.code != 1 || !strings.Contains(clash.stderr, "already imported as "+fork) || !strings.Contains(clash.stderr, "--replace") {
		t.Fatalf("import of a present lineage: %d %q", clash.code, clash.stderr)
	}
	testkit.Equal(t, strings.TrimSpace(run("", "import", bundle, "--replace", fork)), fork)
	testkit.Equal(t, run("", "rm", fork), fork+" removed\n")
	imported := strings.TrimSpace(run(string(raw), "import", "-"))
	if imported == "" || imported == fork {
		t.Fatalf("import from stdin printed %q", imported)
	}
	if !strings.Contains(run("", "transcript", imported), "wrote it") {
		t.Fatal("the imported session lacks the conversation")
	}
	list := run("", "list")
	if strings.Contains(list, fork) || !strings.Contains(list, imported) {
		t.Fatalf("list after rm and import:\n%s", list)
	}

	// A prompt cancelled from another shell ends with exit 130.
	slow := testkit.Start(t, testkit.BuildTroupe(t), env, "session", "prompt", id, "take your time")
	waitBusy(t, env)
	testkit.Equal(t, run("", "cancel", id), id+": the running turn is cancelled\n")
	testkit.Equal(t, slow.Wait(t, 30*time.Second), 130)
	if msg := slow.Stderr(); strings.Count(msg, "── cancelled") != 1 || strings.Contains(msg, "the turn ended") {
		t.Fatalf("cancelled prompt's stderr: %q", slow.Stderr())
	}
	testkit.Equal(t, run("", "cancel", id), id+" has no turn running; nothing to cancel\n")

	// The queue: one prompt running, one waiting behind it.
	head := run("", "prompt", id, "long job", "--queue")
	if !strings.HasSuffix(head, " queued at position 0\n") {
		t.Fatalf("first --queue: %q", head)
	}
	next := run("", "prompt", id, "next job", "--queue")
	if !strings.HasSuffix(next, " queued at position 1\n") {
		t.Fatalf("second --queue: %q", next)
	}
	msg := strings.Fields(next)[0]
	q := run("", "queue", id)
	if !strings.Contains(q, msg) || !strings.Contains(q, "next job") || strings.Contains(q, "long job") {
		t.Fatalf("queue:\n%s", q)
	}
	testkit.Equal(t, run("", "queue", id, "--edit", msg, "edited", "job"), msg+" updated\n")
	if !strings.Contains(run("", "queue", id, "--json"), `"text":"edited job"`) {
		t.Fatal("queue --json does not show the edit")
	}
	testkit.Equal(t, run("", "queue", id, "--cancel", msg), msg+" cancelled\n")
	testkit.Equal(t, run("", "queue", id), id+" has no pending prompt\n")
	testkit.Equal(t, run("", "queue", id, "--json"), "[]\n") // a list, never null
	gone := cli(t, env, "", "session", "queue", id, "--cancel", msg)
	if gone.code != 1 || !strings.Contains(gone.stderr, "no pending prompt "+msg) {
		t.Fatalf("cancel of a prompt no longer queued: %d %q", gone.code, gone.stderr)
	}
	run("", "cancel", id)

	testkit.Eventually(t, 30*time.Second, "the cancelled turn's end", func() bool {
		return !strings.Contains(run("", "list", "--json"), `"busy": true`)
	})
	testkit.Equal(t, run("", "kill", id), id+" stopped (cold)\n")
	testkit.Equal(t, run("", "kill", id), id+" was not live; nothing to stop\n")
	if !strings.Contains(run("", "list"), "cold") {
		t.Fatal("list does not show the killed session cold")
	}
}

// A prompt without a terminal given --timeout leaves a permission request
// open for another client meanwhile: it says who can answer, the session
// lists as awaiting input, and a cancel from another shell ends the turn
// (exit 130).
func TestSessionCLIPromptLeavesPermissionOpen(t *testing.T) {
	_, env, id, p := backgroundPromptWith(t, []string{"--timeout", "10m"}, "run echo", llmserver.Steps(llmserver.ToolCall("c1", "bash", `{"command":"echo asked"}`)),
		llmserver.Steps(llmserver.Text("done")))
	testkit.Eventually(t, 30*time.Second, "the note on the permission", func() bool {
		return strings.Contains(p.Stderr(), "a tool call waits for permission: answer it with `troupe session attach "+id+"` (denied after 10m0s unanswered)")
	})
	row := strings.Fields(strings.Split(cli(t, env, "", "session", "list").ok(t, "list"), "\n")[1])
	testkit.Equal(t, row[0], id)
	testkit.Equal(t, strings.Join(row[1:7], " "), "run echo warm yes yes 1") // title (the first prompt's), status, busy, awaiting input, clients
	cli(t, env, "", "session", "cancel", id).ok(t, "cancel")
	testkit.Equal(t, p.Wait(t, 30*time.Second), 130)
}

// The daemon stopping under a prompt: one line saying so and where the
// turn goes on, exit 1.
func TestSessionCLIPromptDaemonStops(t *testing.T) {
	d, env, id, p := backgroundPrompt(t, "take your time", llmserver.Steps(llmserver.Text("slow "), llmserver.Delay(20*time.Second), llmserver.Text("never")))
	waitBusy(t, env)
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, p.Wait(t, 30*time.Second), 1)
	// The first prompt titled the session: that note comes first.
	msg := strings.TrimPrefix(p.Stderr(), "title: take your time\n")
	if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "the daemon closed the connection") || !strings.Contains(msg, "troupe session transcript "+id) {
		t.Fatalf("prompt's stderr when the daemon stopped: %q", msg)
	}
}

// With stdin not a terminal, Ctrl-C (SIGINT) cancels the turn and waits
// for its end: exit 130.
func TestSessionCLIPromptInterrupt(t *testing.T) {
	_, env, _, p := backgroundPrompt(t, "take your time", llmserver.Steps(llmserver.Text("slow "), llmserver.Delay(20*time.Second), llmserver.Text("never")))
	waitBusy(t, env)
	p.Signal(syscall.SIGINT)
	testkit.Equal(t, p.Wait(t, 30*time.Second), promptCancelled)
	if msg := p.Stderr(); !strings.Contains(msg, "cancelling the turn") || strings.Count(msg, "── cancelled") != 1 || strings.Contains(msg, "the turn ended") {
		t.Fatalf("prompt's stderr after Ctrl-C: %q", msg)
	}
}

// backgroundPrompt starts a daemon with the scripted replies and a
// session on it, then `troupe session prompt` of text in the background
// (stdin not a terminal); env finds the daemon.
func backgroundPrompt(t *testing.T, text string, replies ...llmserver.Reply) (d *daemonProc, env []string, id string, p *testkit.Proc) {
	return backgroundPromptWith(t, nil, text, replies...)
}

// backgroundPromptWith is backgroundPrompt with the prompt's flags.
func backgroundPromptWith(t *testing.T, flags []string, text string, replies ...llmserver.Reply) (d *daemonProc, env []string, id string, p *testkit.Proc) {
	home := t.TempDir()
	env, model := llmEnv(t, replies...)
	d = startDaemon(t, home, env, model...)
	env = append(env, "TROUPE_HOME="+home)
	id = strings.TrimSpace(cli(t, env, "", "session", "new", "--cwd", t.TempDir()).ok(t, "new"))
	args := append([]string{"session", "prompt", id, text}, flags...)
	return d, env, id, testkit.Start(t, testkit.BuildTroupe(t), env, args...)
}

// waitBusy waits until the daemon lists a session busy.
func waitBusy(t *testing.T, env []string) {
	testkit.Eventually(t, 30*time.Second, "the turn running", func() bool {
		return strings.Contains(cli(t, env, "", "session", "list", "--json").ok(t, "list"), `"busy": true`)
	})
}
