package mcp

import (
	"io"
	"os"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/process"
)

// processSpec is how a stdio server runs. Stopping gives it terminateGrace
// between SIGTERM and SIGKILL, as the MCP spec asks.
func (c *conn) processSpec() process.Spec {
	env := append(os.Environ(), lo.Map(c.cfg.Env, func(e EnvVariable, _ int) string { return e.Name + "=" + e.Value })...)
	return process.Spec{
		Path: c.cfg.Command, Args: c.cfg.Args, Env: env, Dir: c.cwd,
		Stdin: true, Output: process.OutputStream, Stderr: c.stderr,
		StopGrace: terminateGrace, PipeGrace: waitDelay,
	}
}

// child is a started stdio server, as its process actor reported it.
type child struct {
	started   *process.Started
	terminate func(grace time.Duration) // asks the process actor
	once      sync.Once
}

// transport speaks MCP over the child's pipes. Closing the connection
// closes stdin, not stdout, as the SDK's CommandTransport does: a server
// ends on EOF and may still write on its way out. The process actor closes
// stdout when it stops. ended runs when stdout ends, before the SDK sees
// it: so the connection is marked dead before the calls in flight fail,
// and a call made after one failed waits for the restart.
func (p *child) transport(ended func()) sdk.Transport {
	return &sdk.IOTransport{Reader: io.NopCloser(endReader{p.started.Stdout, ended}), Writer: p.started.Stdin}
}

// endReader calls ended when its reader fails or reaches EOF.
type endReader struct {
	r     io.Reader
	ended func()
}

func (e endReader) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err != nil {
		e.ended()
	}
	return n, err
}

// end ends the server as the MCP spec asks: EOF on stdin, then SIGTERM
// after terminateGrace, then SIGKILL after another. It returns once the
// server is gone and its stderr is in the tail, or the graces ran out. Safe
// to call more than once, and concurrently.
func (p *child) end() {
	p.once.Do(func() {
		_ = p.started.Stdin.Close() // the connection may have closed it already
		if waitDone(p.started.Done, terminateGrace) {
			return
		}
		p.terminate(terminateGrace)
		waitDone(p.started.Done, terminateGrace+waitDelay)
	})
}

func waitDone(done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
