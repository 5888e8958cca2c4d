package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// runOnTerminal runs `troupe run args...` with stdin, stdout and stderr on
// one new pseudo-terminal and returns what it showed and its exit code.
func runOnTerminal(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(testkit.BuildTroupe(t), append([]string{"run"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	testkit.NoError(t, err)
	defer ptmx.Close()
	var out testkit.Buffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(&out, ptmx) // ends with EIO once the child is gone
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("troupe run did not end: %q", out.String())
	}
	<-copied
	code := 0
	if ee, ok := werr.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		testkit.NoError(t, werr)
	}
	return out.String(), code
}

// troupe run shows its run as session prompt does, with the same
// renderer: thinking (marked on every line when colour is off, so it
// cannot pass for the answer), each tool call's line with its output (an
// edit's diff), the answer; then its stop line.
func TestRunTerminalShowsThinkingAndTools(t *testing.T) {
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.Thinking("The notes have a typo.\nOne edit fixes it."), llmserver.Text("I'll fix it."),
			llmserver.ToolCall("c1", "edit", `{"path":"notes.txt","old_string":"helo","new_string":"hello"}`)),
		llmserver.Steps(llmserver.Text("Fixed.")))
	cwd, home := notesDir(t), t.TempDir()
	testkit.NoError(t, os.Chmod(home, 0o700)) // no warning about a home open to others
	out, code := runOnTerminal(t, append(env, "NO_COLOR=1", "TROUPE_HOME="+home),
		append(model, "--yolo", "--session", "s1", "--cwd", cwd, "fix the typo in notes.txt")...)
	testkit.Equal(t, code, 0)
	wantNotes(t, cwd, "hello world\n")
	got := normaliseView(out, map[string]string{filepath.Join(cwd, "notes.txt"): "notes.txt"})
	if strings.Contains(got, "\x1b[") {
		t.Fatalf("colour with NO_COLOR set: %q", got)
	}
	compareGolden(t, "run_tty.golden", got)
}
