// Package subprocess runs a program with its stdin a pipe, its stdout read
// line by line and its stderr kept, and waits for it, signals or kills it:
// the real troupe binary under test, a fake llama-server, the daemon that
// troupe sim drives.
//
// It owns only the process and the two goroutines that read its stdout and
// wait for its exit (both end with the process; Stop waits for them). It
// does not import package testing, so that troupe sim, which is part of
// the production binary, can use it; testkit.Start ties a Proc to a test.
//
// Its users: troupe sim's daemons, testkit/transcript's processes, and
// (through testkit.Start, which stops it when the test ends) the binary
// under test. It is tied to no test.
package subprocess

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

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

// Launch starts cmd (its Path, Args, Env and Dir as the caller set them)
// with its stdin a pipe and its stdout read line by line. It is tied to no
// test: the caller calls Stop when done (testkit.Start does it at the end
// of a test).
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

// TB is what Wait needs of a test; a *testing.T is one. Declared here so
// that a program running processes with this package (troupe sim) does not
// link package testing.
type TB interface {
	Helper()
	Fatal(args ...any)
}

// Wait waits for exit and returns the exit code (-1 if killed by a
// signal); a process still running after timeout fails t.
func (p *Proc) Wait(t TB, timeout time.Duration) int {
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
