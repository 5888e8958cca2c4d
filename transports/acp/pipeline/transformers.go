package pipeline

import (
	"slices"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/spawner"
)

// transformers are the connected transformers, by name: each one's
// connection and what it intercepts. A restarted transformer's new
// connection replaces the old one.
type transformers struct {
	mu     sync.Mutex
	byName map[string]*transformer
}

type transformer struct {
	conn       *actor.PID
	intercepts map[string]bool
}

func (t *transformers) set(name string, conn *actor.PID, intercepts []string) {
	set := make(map[string]bool, len(intercepts))
	for _, i := range intercepts {
		set[i] = true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byName[name] = &transformer{conn: conn, intercepts: set}
}

// remove drops name's endpoint if it is still conn.
func (t *transformers) remove(name string, conn *actor.PID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.byName[name]; e != nil && e.conn.Equal(conn) {
		delete(t.byName, name)
	}
}

// intercepting is transformer name's connection when it intercepts what.
func (t *transformers) intercepting(name, what string) (*actor.PID, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.byName[name]
	if e == nil || !e.intercepts[what] {
		return nil, false
	}
	return e.conn, true
}

// anyIntercepts reports whether one of names intercepts what.
func (t *transformers) anyIntercepts(names []string, what string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, n := range names {
		if e := t.byName[n]; e != nil && e.intercepts[what] {
			return true
		}
	}
	return false
}

// connected is names without the ones not connected now, and without
// repeats.
func (t *transformers) connected(names []string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, n := range names {
		if t.byName[n] != nil && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// AddTransformer makes conn the endpoint of transformer name, and tells
// the links of the sessions it gates from now on (in their chain, live
// before it connected) that their gate opened.
func (p *Pipeline) AddTransformer(sender actor.SenderContext, name string, conn *actor.PID, intercepts []string) {
	p.chains.mu.Lock()
	p.transformers.set(name, conn, intercepts)
	var gated []string
	for session := range p.chains.links {
		if slices.Contains(p.chains.names[session], name) && p.openGateLocked(session) {
			gated = append(gated, session)
		}
	}
	p.chains.mu.Unlock()
	for _, session := range gated {
		sender.Send(p.Links, &spawner.Tell{Name: session, Msg: &gateOpened{}})
	}
}

// ResolveChain is a new session's chain: names (nil: the defaults) that
// are connected now; the others are skipped (fail-open). The session
// records it in its session.created.
func (p *Pipeline) ResolveChain(names []string) []string {
	if names == nil {
		names = p.Defaults
	}
	return p.transformers.connected(names)
}
