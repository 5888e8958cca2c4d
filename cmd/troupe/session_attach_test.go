package main

import (
	"context"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/transports/daemonclient"
	"github.com/troupehq/troupe/transports/terminal"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// attachView is a running `troupe session attach` and what it wrote.
type attachView struct {
	cmd  *exec.Cmd
	out  *testkit.Buffer
	keys io.Writer
	done chan error
	// exited is closed when the process is gone, so a wait fails at once.
	exited chan struct{}
}

// startAttach runs attach with stdin and stdout on a new pseudo-terminal
// (tty) or on pipes.
func startAttach(t *testing.T, d *daemonProc, tty bool, env []string, args ...string) *attachView {
	t.Helper()
	return startView(t, d, tty, env, "attach", args...)
}

// startView runs `troupe session VERB args...` on d as startAttach does.
func startView(t *testing.T, d *daemonProc, tty bool, env []string, verb string, args ...string) *attachView {
	t.Helper()
	cmd := exec.Command(testkit.BuildTroupe(t), append([]string{"session", verb, "--url", d.url, "--token", d.token}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	v := &attachView{cmd: cmd, out: &testkit.Buffer{}, done: make(chan error, 1), exited: make(chan struct{})}
	var stderr testkit.Buffer
	if tty {
		ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
		testkit.NoError(t, err)
		t.Cleanup(func() { ptmx.Close() })
		v.keys = ptmx
		copied := make(chan struct{})
		go func() {
			defer close(copied)
			_, _ = io.Copy(v.out, ptmx) // ends with EIO once the child is gone
		}()
		go func() {
			err := cmd.Wait()
			<-copied
			close(v.exited)
			v.done <- err
		}()
	} else {
		in, err := cmd.StdinPipe()
		testkit.NoError(t, err)
		v.keys = in
		cmd.Stdout, cmd.Stderr = v.out, &stderr
		testkit.NoError(t, cmd.Start())
		go func() {
			err := cmd.Wait()
			close(v.exited)
			v.done <- err
		}()
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("attach output:\n%q\nstderr:\n%s", v.out.String(), stderr.String())
		}
	})
	return v
}

func (v *attachView) waitFor(t *testing.T, what string) {
	t.Helper()
	testkit.Eventually(t, acpWait, "attach shows "+what, func() bool {
		select {
		case <-v.exited:
			t.Fatalf("attach exited before showing %q", what)
		default:
		}
		return strings.Contains(v.out.String(), what)
	})
}

func (v *attachView) press(t *testing.T, keys string) {
	t.Helper()
	_, err := io.WriteString(v.keys, keys)
	testkit.NoError(t, err)
}

func (v *attachView) exit(t *testing.T) int {
	t.Helper()
	select {
	case err := <-v.done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		testkit.NoError(t, err)
		return 0
	case <-time.After(acpWait):
		t.Fatal("the view did not exit")
		return -1
	}
}

// permissionTurn is a scripted turn: thinking, text, an edit that needs
// permission, then the answer after it.
func permissionTurn(t *testing.T) ([]string, []string) {
	return llmEnv(t,
		llmserver.Steps(llmserver.Thinking("The notes have a typo."), llmserver.Text("I'll fix "), llmserver.Text("the typo."),
			llmserver.ToolCall("c1", "edit", `{"path":"notes.txt","old_string":"helo","new_string":"hello"}`)),
		llmserver.Steps(llmserver.Text("Fixed: notes.txt "), llmserver.Text("now says hello.")))
}

// notesDir is a session's directory with a notes.txt that has a typo.
func notesDir(t *testing.T) string {
	cwd := t.TempDir()
	testkit.NoError(t, os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("helo world\n"), 0o644))
	return cwd
}

// wantNotes checks what notes.txt in cwd says.
func wantNotes(t *testing.T, cwd, want string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cwd, "notes.txt"))
	testkit.NoError(t, err)
	testkit.Equal(t, string(b), want)
}

// attachTurn runs the scripted turn with attach watching: another client
// prompts, attach answers the permission with y, then detaches; it
// returns attach's normalised output.
func attachTurn(t *testing.T, tty bool) string {
	env, model := permissionTurn(t)
	d := startDaemon(t, t.TempDir(), env, model...)
	cwd := notesDir(t)
	sid := d.create(t, cwd)

	v := startAttach(t, d, tty, []string{"NO_COLOR="}, sid)
	v.waitFor(t, "attached to")
	other := d.dialACP(t, "editor")
	_, att := other.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	pid := other.Prompt(sid, "fix the typo in notes.txt")
	v.waitFor(t, "Reject ")
	v.press(t, "y")
	other.WaitAnswer(pid)
	v.waitFor(t, "── end_turn")
	wantNotes(t, cwd, "hello world\n")

	if tty {
		v.press(t, "\x03") // nothing runs: one Ctrl-C detaches
	} else {
		testkit.NoError(t, v.cmd.Process.Signal(syscall.SIGINT))
	}
	testkit.Equal(t, v.exit(t), 0)
	return normaliseView(v.out.String(), map[string]string{sid: "SESSION", att.ClientID: "CLIENT"})
}

var (
	spinnerDraw = regexp.MustCompile(`(\r\x1b\[2K(\x1b\[\d+m)?[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏](\x1b\[0m)?(\x1b\[\d+m)? waiting for the model [0-9.]+s(\x1b\[0m)?)+\r\x1b\[2K`)
	seconds     = regexp.MustCompile(`\d+\.\ds\b`)
)

// normaliseView makes a view's output comparable: line ends, the spinner
// (drawn as often as time allows), durations, ids.
func normaliseView(s string, ids map[string]string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = spinnerDraw.ReplaceAllString(s, "")
	s = seconds.ReplaceAllString(s, "N.Ns")
	for id, name := range ids {
		s = strings.ReplaceAll(s, id, name)
	}
	return s
}

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		testkit.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	testkit.NoError(t, err)
	if got != string(want) {
		t.Fatalf("%s differs (go test -run %s -update rewrites it)\ngot:\n%s\nwant:\n%s", path, t.Name(), got, want)
	}
}

// attach in a pseudo-terminal shows the turn another client started,
// coloured, and answers its permission request by key.
func TestSessionAttachTerminalGolden(t *testing.T) {
	compareGolden(t, "attach_tty.golden", attachTurn(t, true))
}

// The same turn with stdout not a terminal is plain text: no colour, no
// cursor movement.
func TestSessionAttachPlainGolden(t *testing.T) {
	got := attachTurn(t, false)
	if strings.Contains(got, "\x1b") {
		t.Fatalf("escape sequences in plain output: %q", got)
	}
	compareGolden(t, "attach_plain.golden", got)
}

// Ctrl-C once cancels the running turn (the spinner showed while the
// model had not answered); twice detaches while a turn runs.
func TestSessionAttachCtrlCCancels(t *testing.T) {
	env, model := llmEnv(t,
		llmserver.Steps(llmserver.Delay(time.Second), llmserver.Text("working "), llmserver.Delay(time.Minute), llmserver.Text("never")),
		llmserver.Steps(llmserver.Text("still busy "), llmserver.Delay(time.Minute), llmserver.Text("never")))
	d := startDaemon(t, t.TempDir(), env, model...)
	sid := d.create(t, t.TempDir())
	v := startAttach(t, d, true, nil, sid)
	v.waitFor(t, "attached to")
	other := d.dialACP(t, "editor")
	other.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})

	pid := other.Prompt(sid, "start")
	v.waitFor(t, "working")
	if !strings.Contains(v.out.String(), "waiting for the model") {
		t.Fatalf("no spinner before the first token: %q", v.out.String())
	}
	v.press(t, "\x03")
	fs := other.Until(func(f acpclient.Frame) bool { return f.Answers(pid) })
	testkit.Equal(t, string(fs[len(fs)-1].Result), `{"stopReason":"cancelled"}`)
	v.waitFor(t, "cancelled")

	other.Prompt(sid, "again")
	v.waitFor(t, "still busy")
	v.press(t, "\x03\x03")
	testkit.Equal(t, v.exit(t), 0)
	out := v.out.String()
	if !strings.Contains(out, "cancelling the turn") || !strings.HasSuffix(strings.TrimSpace(stripANSI(out)), "detached") {
		t.Fatalf("attach output: %q", out)
	}
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

func stripANSI(s string) string { return ansi.ReplaceAllString(s, "") }

// When another client answers the permission first, attach withdraws
// its prompt saying who answered, and its late key changes nothing.
func TestSessionAttachYieldsToAnotherAnswer(t *testing.T) {
	env, model := permissionTurn(t)
	d := startDaemon(t, t.TempDir(), env, model...)
	cwd := notesDir(t)
	sid := d.create(t, cwd)
	v := startAttach(t, d, false, nil, sid)
	v.waitFor(t, "attached to")
	other := d.dialACP(t, "editor")
	other.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	pid := other.Prompt(sid, "fix the typo in notes.txt")
	asked := other.Until(func(f acpclient.Frame) bool { return f.Method == "session/request_permission" })
	v.waitFor(t, "Reject ")
	other.AnswerPermission(asked[len(asked)-1].ID, "reject_once")
	// Who answered is the client's name from initialize, not its id.
	v.waitFor(t, "Reject answered by editor: denied\n")
	v.press(t, "y")
	other.WaitAnswer(pid)
	v.waitFor(t, "── end_turn")
	wantNotes(t, cwd, "helo world\n")
	testkit.NoError(t, v.cmd.Process.Signal(syscall.SIGINT))
	testkit.Equal(t, v.exit(t), 0)
	if out := v.out.String(); !strings.Contains(out, "✗ edit notes.txt") || strings.Contains(out, "→") {
		t.Fatalf("attach output: %q", out)
	}
}

// Bad usage of attach is exit 2 with one line naming what is wanted (no
// daemon, a wrong token, an unknown session: TestSessionCLIErrorPaths).
func TestSessionAttachUsage(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	bin := testkit.BuildTroupe(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no id", []string{"--url", d.url, "--token", d.token}, "want one session id"},
		{"both replays", []string{"s-x", "--from-start", "--new-only", "--url", d.url, "--token", d.token}, "exclude each other"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := testkit.Start(t, bin, nil, append([]string{"session", "attach"}, c.args...)...)
			_ = p.Stdin.Close()
			testkit.Equal(t, p.Wait(t, acpWait), 2)
			stderr := p.Stderr()
			if !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("stderr %q, want one line with %q", stderr, c.want)
			}
		})
	}
}

// terminal.PromptTurn, the streaming `troupe session prompt` shares with
// attach, renders its own prompt's turn against the daemon, answers the
// permission with a key and returns the stop reason.
func TestSessionPromptTurnRenders(t *testing.T) {
	env, model := permissionTurn(t)
	d := startDaemon(t, t.TempDir(), env, model...)
	cwd := notesDir(t)
	sid := d.create(t, cwd)
	ws, err := (&daemonclient.Client{URL: d.url, Token: d.token}).DialWS(context.Background())
	testkit.NoError(t, err)
	keys, press := io.Pipe()
	defer press.Close()
	var out testkit.Buffer
	type result struct {
		stop string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		stop, err := terminal.PromptTurn(context.Background(), terminal.ClientConfig{Conn: ws, Keys: keys, Out: &out, Name: "test"}, sid, "fix the typo in notes.txt")
		done <- result{stop, err}
	}()
	testkit.Eventually(t, acpWait, "the permission prompt", func() bool { return strings.Contains(out.String(), "Reject ") })
	_, err = io.WriteString(press, "y")
	testkit.NoError(t, err)
	res := testkit.ChanRead(t, done, acpWait)
	testkit.NoError(t, res.err)
	testkit.Equal(t, res.stop, "end_turn")
	want := "title: fix the typo in notes.txt\n" + // the first prompt titled the session
		"┊ The notes have a typo.\nI'll fix the typo.\n" + // thinking marked: no colour
		"    -helo\n    +hello\n" + // the change asked about, above the question
		"? allow edit notes.txt?  [y] Allow once  [a] Always allow  [n] Reject → Allow once\n" +
		"  ✓ edit notes.txt N.Ns (after N.Ns waiting for permission)\n    --- a/notes.txt\n    +++ b/notes.txt\n    @@ -1 +1 @@\n    -helo world\n    +hello world\n" +
		"\nFixed: notes.txt now says hello.\n── end_turn\n" // the next step's text, a paragraph
	testkit.Equal(t, normaliseView(out.String(), nil), want)
}

// A session stopped under attach (killed: cold) ends the view, saying
// how to follow it again.
func TestSessionAttachEndsWhenSessionStops(t *testing.T) {
	d := startDaemon(t, t.TempDir(), nil)
	sid := d.create(t, t.TempDir())
	v := startAttach(t, d, false, nil, sid, "--readonly")
	v.waitFor(t, "read-only")
	d.call(t, "POST", "/v1/sessions/"+sid+"/kill", nil, http.StatusAccepted, nil)
	testkit.Equal(t, v.exit(t), 0)
	if out := v.out.String(); !strings.HasSuffix(out, "the session was stopped (cold); attach again to follow it\n") {
		t.Fatalf("attach output: %q", out)
	}
}

// --from-start replays the conversation before the live view (the
// prompt, the thinking, the answer); --new-only replays nothing.
func TestSessionAttachFromStart(t *testing.T) {
	env, model := llmEnv(t, llmserver.Steps(llmserver.Thinking("Easy."), llmserver.Text("Hello "), llmserver.Text("there.")))
	d := startDaemon(t, t.TempDir(), env, model...)
	sid := d.create(t, t.TempDir())
	other := d.dialACP(t, "editor")
	_, att := other.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
	other.WaitAnswer(other.Prompt(sid, "say hello"))

	v := startAttach(t, d, false, nil, sid, "--from-start", "--readonly")
	v.waitFor(t, "attached to")
	testkit.NoError(t, v.cmd.Process.Signal(syscall.SIGINT))
	testkit.Equal(t, v.exit(t), 0)
	// The prompt replays as its prompt_received, naming who sent it.
	// The title (the first prompt's) is state: its value closes the replay.
	want := "› say hello (from editor)\n┊ Easy.\nHello there.\n── end_turn\ntitle: say hello\n" +
		"attached to SESSION \"say hello\" (warm, read-only, 2 clients); Ctrl-C detaches\ndetached\n"
	testkit.Equal(t, normaliseView(v.out.String(), map[string]string{sid: "SESSION", att.ClientID: "EDITOR"}), want)

	// --new-only replays nothing.
	v = startAttach(t, d, false, nil, sid, "--new-only")
	v.waitFor(t, "attached to")
	testkit.NoError(t, v.cmd.Process.Signal(syscall.SIGINT))
	testkit.Equal(t, v.exit(t), 0)
	testkit.Equal(t, normaliseView(v.out.String(), map[string]string{sid: "SESSION"}),
		"attached to SESSION \"say hello\" (warm, 2 clients); Ctrl-C cancels the running turn, twice detaches\ndetached\n")
}
