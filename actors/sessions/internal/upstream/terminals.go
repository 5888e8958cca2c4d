package upstream

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	acp "github.com/coder/acp-go-sdk"
	"github.com/troupehq/troupe/runtime/proc"
)

// defaultOutputLimit bounds a terminal's kept output when the agent names
// no limit: the newest bytes are kept.
const defaultOutputLimit = 1 << 20

// terminals serves the agent's terminal/* requests: each command runs in
// a process group of its own (runtime/proc, which kills it if troupe
// dies), in a directory within the session's; all are killed when the
// agent actor stops. Each command's waiting goroutine is owned by its
// terminal and ends when the command does.
type terminals struct {
	cwd   string
	files *files

	mu   sync.Mutex
	next int
	all  map[string]*terminal
}

type terminal struct {
	cmd   *proc.Cmd
	limit int
	done  chan struct{} // closed once the command has exited

	mu        sync.Mutex
	out       bytes.Buffer
	truncated bool
	exit      *acp.TerminalExitStatus
}

func newTerminals(cwd string, f *files) *terminals {
	return &terminals{cwd: cwd, files: f, all: map[string]*terminal{}}
}

var errNoTerminal = acp.NewInvalidParams(map[string]string{"error": "no such terminal"})

func (ts *terminals) create(req acp.CreateTerminalRequest) (string, error) {
	dir := ts.cwd
	if req.Cwd != nil && *req.Cwd != "" {
		d, err := ts.files.check(*req.Cwd)
		if err != nil {
			return "", err
		}
		dir = d
	}
	t := &terminal{limit: defaultOutputLimit, done: make(chan struct{})}
	if req.OutputByteLimit != nil && *req.OutputByteLimit >= 0 {
		t.limit = *req.OutputByteLimit
	}
	t.cmd = proc.Command(req.Command, req.Args...)
	t.cmd.Dir = dir
	t.cmd.Env = os.Environ()
	for _, e := range req.Env {
		t.cmd.Env = append(t.cmd.Env, e.Name+"="+e.Value)
	}
	t.cmd.Stdout, t.cmd.Stderr = t, t
	if err := t.cmd.Start(); err != nil {
		return "", acp.NewInternalError(map[string]string{"command": req.Command, "error": err.Error()})
	}
	go t.waitExit()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.next++
	id := "term-" + strconv.Itoa(ts.next)
	ts.all[id] = t
	return id, nil
}

// Write keeps the newest limit bytes of the command's output.
func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out.Write(p)
	if over := t.out.Len() - t.limit; over > 0 {
		t.out.Next(over)
		t.truncated = true
	}
	return len(p), nil
}

func (t *terminal) waitExit() {
	err := t.cmd.Wait()
	t.cmd.Kill() // what the command left in its group
	st := &acp.TerminalExitStatus{}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig := ws.Signal().String()
			st.Signal = &sig
		}
	}
	if st.Signal == nil {
		code := t.cmd.ProcessState.ExitCode()
		st.ExitCode = &code
	}
	t.mu.Lock()
	t.exit = st
	t.mu.Unlock()
	close(t.done)
}

func (ts *terminals) get(id string) (*terminal, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.all[id]
	if !ok {
		return nil, errNoTerminal
	}
	return t, nil
}

func (ts *terminals) output(id string) (acp.TerminalOutputResponse, error) {
	t, err := ts.get(id)
	if err != nil {
		return acp.TerminalOutputResponse{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return acp.TerminalOutputResponse{Output: t.out.String(), Truncated: t.truncated, ExitStatus: t.exit}, nil
}

func (ts *terminals) wait(ctx context.Context, id string) (acp.WaitForTerminalExitResponse, error) {
	t, err := ts.get(id)
	if err != nil {
		return acp.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return acp.WaitForTerminalExitResponse{}, ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return acp.WaitForTerminalExitResponse{ExitCode: t.exit.ExitCode, Signal: t.exit.Signal}, nil
}

func (ts *terminals) kill(id string) error {
	t, err := ts.get(id)
	if err != nil {
		return err
	}
	t.cmd.Kill()
	return nil
}

func (ts *terminals) release(id string) error {
	ts.mu.Lock()
	t, ok := ts.all[id]
	delete(ts.all, id)
	ts.mu.Unlock()
	if !ok {
		return errNoTerminal
	}
	t.cmd.Kill()
	return nil
}

// closeAll kills every terminal's command; their goroutines end as the
// commands do.
func (ts *terminals) closeAll() {
	ts.mu.Lock()
	all := ts.all
	ts.all = map[string]*terminal{}
	ts.mu.Unlock()
	for _, t := range all {
		t.cmd.Kill()
	}
}
