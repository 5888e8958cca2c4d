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
func (w *watchers) Watch(session string, conn *actor.PID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	conns := w.bySession[session]
	if conns == nil {
		conns = map[string]*actor.PID{}
		w.bySession[session] = conns
	}
	conns[conn.String()] = conn
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
func (w *watchers) watchingKeys(session string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.bySession[session]))
	for k := range w.bySession[session] {
		out = append(out, k)
	}
	return out
}

// Watching is the connections attached to session, copied out.
func (w *watchers) Watching(session string) []*actor.PID {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]*actor.PID, 0, len(w.bySession[session]))
	for _, c := range w.bySession[session] {
		out = append(out, c)
	}
	return out
}

// AllWatching is every connection attached to some session, each once
// (what every attached client is told, such as the commands it may send).
func (w *watchers) AllWatching() []*actor.PID {
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := map[string]*actor.PID{}
	for _, conns := range w.bySession {
		for k, c := range conns {
			seen[k] = c
		}
	}
	out := make([]*actor.PID, 0, len(seen))
	for _, c := range seen {
		out = append(out, c)
	}
	return out
}
