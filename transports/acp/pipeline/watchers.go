package pipeline

import (
	"sync"

	"github.com/asynkron/protoactor-go/actor"
)

// watchers are the connections attached to each session, for the
// notifications every attached client gets (a gate's release, a held
// permission request let through, an abandoned claim).
type watchers struct {
	mu        sync.Mutex
	bySession map[string]map[string]*actor.PID // session -> connection's PID string -> it
}

// Watch records conn attached to session.
func (p *Pipeline) Watch(session string, conn *actor.PID) {
	p.watchers.mu.Lock()
	defer p.watchers.mu.Unlock()
	w := p.watchers.bySession[session]
	if w == nil {
		w = map[string]*actor.PID{}
		p.watchers.bySession[session] = w
	}
	w[conn.String()] = conn
}

// Unwatch records conn leaving session.
func (p *Pipeline) Unwatch(session string, conn *actor.PID) {
	if g := p.gateOf(session); g != nil {
		g.mu.Lock()
		delete(g.projected, conn.String()) // a later attachment of conn starts over
		g.mu.Unlock()
	}
	p.watchers.mu.Lock()
	defer p.watchers.mu.Unlock()
	if w := p.watchers.bySession[session]; w != nil {
		delete(w, conn.String())
		if len(w) == 0 {
			delete(p.watchers.bySession, session)
		}
	}
}

// watchingKeys names the connections attached to session.
func (p *Pipeline) watchingKeys(session string) []string {
	p.watchers.mu.Lock()
	defer p.watchers.mu.Unlock()
	out := make([]string, 0, len(p.watchers.bySession[session]))
	for k := range p.watchers.bySession[session] {
		out = append(out, k)
	}
	return out
}

// Watching is the connections attached to session, copied out.
func (p *Pipeline) Watching(session string) []*actor.PID {
	p.watchers.mu.Lock()
	defer p.watchers.mu.Unlock()
	out := make([]*actor.PID, 0, len(p.watchers.bySession[session]))
	for _, c := range p.watchers.bySession[session] {
		out = append(out, c)
	}
	return out
}
