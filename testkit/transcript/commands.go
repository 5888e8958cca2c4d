package transcript

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/testkit/subprocess"
)

// Timeouts: generous, because a slow or loaded machine is no failure; a
// program that never answers still fails within a minute.
const (
	lineTimeout    = 60 * time.Second
	exitTimeout    = 60 * time.Second
	requestTimeout = 30 * time.Second
)

type command = func(ts *testscript.TestScript, neg bool, args []string)

var commands = map[string]command{
	"llmserver":  cmdLLMServer,
	"start":      cmdStart,
	"send":       cmdSend,
	"expect":     cmdExpect,
	"close":      cmdClose,
	"drain":      cmdDrain,
	"signal":     cmdSignal,
	"sleep":      cmdSleep,
	"request":    cmdRequest,
	"transcript": cmdTranscript,
}

func noNeg(ts *testscript.TestScript, neg bool, name string) {
	if neg {
		ts.Fatalf("%s does not take !", name)
	}
}

// llmserver FILE: serve the LLM script in FILE (YAML or JSON, see
// llmserver.LoadScript) for the rest of the script.
func cmdLLMServer(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "llmserver")
	if len(args) != 1 {
		ts.Fatalf("usage: llmserver FILE")
	}
	s := state(ts)
	if s.srv != nil {
		ts.Fatalf("llmserver: a server already runs")
	}
	script, err := llmserver.LoadScript(ts.MkAbs(args[0]))
	ts.Check(err)
	s.warnings = &warnings{}
	srv, err := llmserver.Start(script, llmserver.WithLogger(slog.New(s.warnings)))
	ts.Check(err)
	s.srv = srv
	s.norm.Literal(srv.URL(), "LLM")
	ts.Setenv("LLM", srv.URL())
}

// start PROGRAM [ARG...]: run PROGRAM (found on the script's PATH) in
// the current directory and drive it through stdin and stdout.
func cmdStart(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "start")
	if len(args) == 0 {
		ts.Fatalf("usage: start PROGRAM [ARG...]")
	}
	s := state(ts)
	if s.running {
		ts.Fatalf("start: the previous process still runs; close, drain or signal KILL it first")
	}
	path := lookPath(ts, args[0])
	cmd := exec.Command(path, args[1:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = append(os.Environ(), "TROUPE_HOME="+ts.Getenv("TROUPE_HOME"), "TMPDIR="+ts.Getenv("TMPDIR"))
	if s.srv != nil {
		cmd.Env = append(cmd.Env, "OPENAI_BASE_URL="+s.srv.URL()+"/v1", "OPENAI_API_KEY=")
	}
	p, err := subprocess.Launch(cmd)
	ts.Check(err)
	s.proc, s.running = p, true
	s.procs = append(s.procs, p)
	s.write(s.norm.literal(strings.Join(append([]string{"$", args[0]}, args[1:]...), " ")))
}

// lookPath finds name on the script's PATH (not the test's).
func lookPath(ts *testscript.TestScript, name string) string {
	if strings.ContainsRune(name, filepath.Separator) {
		return ts.MkAbs(name)
	}
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	ts.Fatalf("start: %s not found on $PATH", name)
	return ""
}

func running(ts *testscript.TestScript, name string) *script {
	s := state(ts)
	if !s.running {
		ts.Fatalf("%s: no process runs; start one first", name)
	}
	return s
}

// send LINE: write LINE and a newline to stdin, after Expand.
func cmdSend(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "send")
	if len(args) != 1 {
		ts.Fatalf("usage: send LINE (one argument: quote the line with '...')")
	}
	s := running(ts, "send")
	s.write("> " + args[0])
	if _, err := fmt.Fprintln(s.proc.Stdin, s.norm.Expand(args[0], s.lookup(ts))); err != nil {
		ts.Fatalf("send: %v", err)
	}
}

// expect TEXT...: read output lines up to the first that contains every
// TEXT (after Expand).
func cmdExpect(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "expect")
	if len(args) == 0 {
		ts.Fatalf("usage: expect TEXT...")
	}
	s := running(ts, "expect")
	want := make([]string, len(args))
	for i, a := range args {
		want[i] = s.norm.Expand(a, s.lookup(ts))
	}
	for {
		line, err := s.next(lineTimeout)
		if err != nil {
			ts.Fatalf("expect %q: %v\ntranscript so far:\n%s\nstderr:\n%s", args, err, s.out.String(), s.proc.Stderr())
		}
		s.received(ts, line)
		if containsAll(line, want) {
			return
		}
	}
}

var errEnded = errors.New("output ended")

// next returns the next output line, errEnded at EOF, or an error when
// none comes within timeout.
func (s *script) next(timeout time.Duration) (string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case line, ok := <-s.proc.Lines():
		if !ok {
			return "", errEnded
		}
		return line, nil
	case <-timer.C:
		return "", fmt.Errorf("no output line for %s", timeout)
	}
}

func containsAll(line string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(line, w) {
			return false
		}
	}
	return true
}

// close: close stdin (EOF), then drain.
func cmdClose(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "close")
	s := running(ts, "close")
	s.write("> EOF")
	ts.Check(s.proc.Stdin.Close())
	s.drain(ts)
}

// drain: read the rest of the output and record the exit status, for a
// process that ends on its own.
func cmdDrain(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "drain")
	running(ts, "drain").drain(ts)
}

func (s *script) drain(ts *testscript.TestScript) {
	deadline := time.Now().Add(exitTimeout)
	for {
		line, err := s.next(time.Until(deadline))
		if errors.Is(err, errEnded) {
			break
		}
		if err != nil {
			ts.Fatalf("drain: the output did not end: %v\ntranscript so far:\n%s\nstderr:\n%s", err, s.out.String(), s.proc.Stderr())
		}
		s.received(ts, line)
	}
	s.exited(ts)
}

func (s *script) exited(ts *testscript.TestScript) {
	code, err := s.proc.ExitCode(exitTimeout)
	if err != nil {
		ts.Fatalf("%v\ntranscript so far:\n%s\nstderr:\n%s", err, s.out.String(), s.proc.Stderr())
	}
	s.running = false
	s.write("exit " + strconv.Itoa(code))
	// testscript shows its log only when the script fails (or with -v).
	if e := s.proc.Stderr(); e != "" {
		ts.Logf("stderr of %s:\n%s", s.proc.Cmd.Path, e)
	}
}

var signals = map[string]syscall.Signal{"KILL": syscall.SIGKILL, "TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "HUP": syscall.SIGHUP}

// signal NAME: send SIGNAME (KILL, TERM, INT or HUP). After KILL the
// process is waited for and what it wrote but was not read yet is
// dropped: when it wrote it, before or after the kill, is a race.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "signal")
	if len(args) != 1 || signals[args[0]] == 0 {
		ts.Fatalf("usage: signal KILL|TERM|INT|HUP")
	}
	s := running(ts, "signal")
	s.write("SIG" + args[0])
	ts.Check(s.proc.Cmd.Process.Signal(signals[args[0]]))
	if args[0] == "KILL" {
		s.proc.Stop()
		s.exited(ts)
	}
}

// sleep DURATION: pause, for a scenario that needs the program to get
// further than its output shows (a tool call really running).
func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "sleep")
	if len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}

// [!] request N TEXT: the Nth chat request the LLM server received
// (waiting for it) does (not) contain TEXT in its body, as sent (JSON,
// so a newline in a message is the two characters \n).
func cmdRequest(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: request N TEXT")
	}
	s := state(ts)
	if s.srv == nil {
		ts.Fatalf("request: no llmserver runs")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		ts.Fatalf("request: N must be a positive number, not %q", args[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	reqs, err := s.srv.WaitChatRequests(ctx, n)
	if err != nil {
		ts.Fatalf("request: waiting for chat request %d: %v", n, err)
	}
	body := string(reqs[n-1].Body)
	switch has := strings.Contains(body, args[1]); {
	case has && neg:
		ts.Fatalf("chat request %d contains %q:\n%s", n, args[1], body)
	case !has && !neg:
		ts.Fatalf("chat request %d lacks %q:\n%s", n, args[1], body)
	}
}

// transcript: write the transcript so far to stdout, for `cmp stdout
// want`. It fails if the LLM server reported a problem (a script that ran
// out of replies), which the transcript might not show.
func cmdTranscript(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "transcript")
	if len(args) != 0 {
		ts.Fatalf("usage: transcript")
	}
	s := state(ts)
	if s.warnings != nil {
		if w := s.warnings.list(); len(w) > 0 {
			ts.Fatalf("the LLM server reported: %s", strings.Join(w, "; "))
		}
	}
	_, err := fmt.Fprint(ts.Stdout(), s.out.String())
	ts.Check(err)
}
