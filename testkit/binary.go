package testkit

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// BuildTroupe builds the troupe command once per test process and returns
// the binary's path. It builds by package path, so it also works from a
// module that embeds troupe.
func BuildTroupe(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "troupe-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "troupe")
		out, err := exec.Command("go", "build", "-o", buildPath, "github.com/troupehq/troupe/cmd/troupe").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build troupe: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// Proc is a running subprocess with line-oriented stdout.
type Proc struct {
	Cmd   *exec.Cmd
	Stdin io.WriteCloser
	lines chan string

	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan struct{}
	err    error
}

// Start runs bin with args and extra environment; the process is killed
// when the test ends if it is still running.
func Start(t testing.TB, bin string, env []string, args ...string) *Proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	p, err := Launch(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("stderr of %s:\n%s", bin, p.Stderr())
		}
	})
	return p
}

// Launch starts cmd (its Path, Args, Env and Dir as the caller set them)
// with its stdin a pipe and its stdout read line by line. Unlike Start it
// is tied to no test: the caller calls Stop when done, so that harnesses
// with their own lifecycle (testkit/transcript) can use it.
func Launch(cmd *exec.Cmd) (*Proc, error) {
	p := &Proc{Cmd: cmd, lines: make(chan string, 1024), done: make(chan struct{})}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin of %s: %w", cmd.Path, err)
	}
	// An os.Pipe rather than StdoutPipe: Wait must report the exit even
	// while nobody reads stdout, and StdoutPipe ties the two together.
	stdout, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdout of %s: %w", cmd.Path, err)
	}
	cmd.Stdout = w
	cmd.Stderr = lockedWriter{p}
	if err := cmd.Start(); err != nil {
		stdout.Close()
		w.Close()
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	w.Close()
	p.Stdin = stdin
	go func() {
		defer stdout.Close()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 64<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Stop kills the process if it still runs, waits for it and lets the
// stdout reader reach EOF and end, dropping what was not read.
func (p *Proc) Stop() {
	_ = p.Cmd.Process.Kill()
	<-p.done
	for range p.lines {
	}
}

type lockedWriter struct{ p *Proc }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.stderr.Write(b)
}

// Stderr is everything the process wrote to stderr so far.
func (p *Proc) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// Lines is the process's stdout, one line per value, closed at EOF.
func (p *Proc) Lines() <-chan string { return p.lines }

// ReadLine returns the next stdout line; ok is false at EOF or timeout.
func (p *Proc) ReadLine(timeout time.Duration) (line string, ok bool) {
	select {
	case l, open := <-p.lines:
		return l, open
	case <-time.After(timeout):
		return "", false
	}
}

// Done is closed once the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Kill sends SIGKILL: the process gets no chance to clean up.
func (p *Proc) Kill() { _ = p.Cmd.Process.Signal(syscall.SIGKILL) }

// Signal sends sig to the process.
func (p *Proc) Signal(sig os.Signal) { _ = p.Cmd.Process.Signal(sig) }

// Wait waits for exit and returns the exit code (-1 if killed by a signal).
func (p *Proc) Wait(t testing.TB, timeout time.Duration) int {
	t.Helper()
	code, err := p.ExitCode(timeout)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// ExitCode waits up to timeout for exit and returns the exit code (-1 if
// killed by a signal).
func (p *Proc) ExitCode(timeout time.Duration) (int, error) {
	select {
	case <-p.done:
	case <-time.After(timeout):
		return 0, fmt.Errorf("process did not exit within %s", timeout)
	}
	if p.err == nil {
		return 0, nil
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode(), nil
	}
	return 0, fmt.Errorf("wait: %w", p.err)
}
