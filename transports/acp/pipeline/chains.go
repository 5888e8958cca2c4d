package pipeline

import (
	"slices"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
)

// chains are each session's transformer chain and the link that runs it
// while the session is live. One lock for the three maps: a link's
// hand-over (linklive.go) reads and changes them together.
type chains struct {
	mu     sync.Mutex
	names  map[string][]string   // session -> transformer names
	links  map[string]*actor.PID // sessions whose link runs, and it
	relive map[string]int64      // sessions live again before their link ended: the next link's first seq
}

// forget drops a deleted session's chain.
func (c *chains) forget(session string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.names, session)
	delete(c.relive, session)
}

// RestoreChain sets session's chain as its log records it, connected or
// not: a transformer not yet back after a restart intercepts again once
// it reconnects.
func (c *chains) RestoreChain(session string, chain []string) {
	if len(chain) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names[session] = slices.Clone(chain)
}

// Join adds name to a live session's chain (idempotent).
func (c *chains) Join(session, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.Contains(c.names[session], name) {
		c.names[session] = append(c.names[session], name)
	}
}

// InChain reports whether name is in session's chain.
func (c *chains) InChain(session, name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.names[session], name)
}

// Chain is session's chain when one of its transformers intercepts what
// (nil when none does).
func (p *Pipeline) Chain(session, what string) []string {
	p.chains.mu.Lock()
	defer p.chains.mu.Unlock()
	if !p.interceptsLocked(session, what) {
		return nil
	}
	return slices.Clone(p.chains.names[session])
}

// interceptsLocked reports whether one of session's chain intercepts what;
// under chains.mu.
func (p *Pipeline) interceptsLocked(session, what string) bool {
	return p.transformers.anyIntercepts(p.chains.names[session], what)
}

// ChainOf is session's chain.
func (c *chains) ChainOf(session string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.names[session])
}
