package process

import (
	"sync"
	"syscall"

	"github.com/troupehq/troupe/runtime/proc"
)

// group signals the program's process group until the reaper has killed
// what was left of it; after that the group id may belong to someone else.
type group struct {
	cmd *proc.Cmd

	mu   sync.Mutex
	gone bool
}

func (g *group) term() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.gone {
		_ = g.cmd.Signal(syscall.SIGTERM)
	}
}

func (g *group) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.gone {
		g.cmd.Kill()
	}
}

// reaped kills what the program left in its group, and lets the watcher go.
func (g *group) reaped() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cmd.Kill()
	g.cmd.Release()
	g.gone = true
}
