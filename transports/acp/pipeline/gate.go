package pipeline

import (
	"bytes"
	"encoding/json"
	"math"
	"sync"
	"sync/atomic"

	"github.com/troupehq/troupe/transports/jsonrpc"
	"github.com/troupehq/troupe/transports/overrides"
)

// The gate holds a session's agent updates from its clients until the
// response:session/update chain has decided on each. A session has one
// only while its link runs and its chain intercepts response:session/update
// (from the link's start); every other session goes ungated and pays
// nothing but reading gates.n.

// gates are the sessions' gates: written under chains.mu (a gate comes and
// goes with its session's link), read without it, so that while some
// sessions are gated the others' connections never wait on each other.
type gates struct {
	m sync.Map     // session -> *gate
	n atomic.Int32 // how many gates, read without a lock
}

// decision is the chain's verdict on one event's agent update, shared
// with every other view of the session's updates.
type decision = overrides.Decision

// gate is one session's: every event up to released may be projected;
// decisions are the rewrites and drops the link made (for the link's life:
// a client that falls behind reads them here, not from the store).
type gate struct {
	mu        sync.Mutex // held for a map operation, never across a wait
	released  int64      // -1 until the link knows where the live stream starts
	decisions map[int64]decision
	// projected is how far each watching connection has projected (by
	// connection), so decisions all of them are past can go.
	projected map[string]int64
	added     int   // decisions since the last prune
	forgot    int64 // the decisions up to this seq may have been pruned
}

// pruneEvery is how many decisions are recorded between two looks for
// ones every watching connection is past.
const pruneEvery = 1024

// GateOpen tells a connection that a session's gate released more.
type GateOpen struct{ Session string }

// gateOpened tells a running link that its session's gate was just made
// (held at -1): it moves it up to what it has seen.
type gateOpened struct{}

// openGateLocked makes session's gate, holding everything, when its chain
// intercepts response:session/update; under chains.mu. It reports whether it
// made one.
func (p *Pipeline) openGateLocked(session string) bool {
	if _, ok := p.gates.m.Load(session); ok || !p.interceptsLocked(session, "response:session/update") {
		return false
	}
	p.gates.m.Store(session, &gate{released: -1, decisions: map[int64]decision{}, projected: map[string]int64{}})
	p.gates.n.Add(1)
	return true
}

// closeGateLocked drops session's gate (what it held goes out as
// recorded), reporting whether there was one; under chains.mu.
func (gs *gates) closeGateLocked(session string) bool {
	if _, ok := gs.m.LoadAndDelete(session); !ok {
		return false
	}
	gs.n.Add(-1)
	return true
}

// gateOf is session's gate, nil for none: lock-free, so that while some
// sessions are gated the others' connections never wait on each other.
func (gs *gates) gateOf(session string) *gate {
	if gs.n.Load() == 0 {
		return nil
	}
	g, _ := gs.m.Load(session)
	gt, _ := g.(*gate)
	return gt
}

// gated reports whether session has a gate.
func (gs *gates) gated(session string) bool { return gs.gateOf(session) != nil }

// Released is how far session's clients may be shown its events
// (math.MaxInt64 ungated): the connections and the REST history's follow
// wait for it.
func (gs *gates) Released(session string) int64 {
	g := gs.gateOf(session)
	if g == nil {
		return math.MaxInt64
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.released
}

// Decided is the gate's word on session's event at seq for a reader that
// is not a watching connection (the REST history's follow): its decision,
// if any; known is false when the gate may have forgotten it (pruned, or
// no gate any more), and the log must be read instead.
func (gs *gates) Decided(session string, seq int64) (d decision, decided, known bool) {
	g := gs.gateOf(session)
	if g == nil {
		return decision{}, false, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if seq <= g.forgot || seq > g.released {
		return decision{}, false, false
	}
	d, decided = g.decisions[seq]
	return d, decided, true
}

// Decision is the link's decision on session's event at seq, if any, for
// a watching connection.
func (gs *gates) Decision(session string, seq int64) (decision, bool) {
	g := gs.gateOf(session)
	if g == nil {
		return decision{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	d, ok := g.decisions[seq]
	return d, ok
}

// gateMove moves session's gate to seq (never back), reporting whether it
// moved.
func (gs *gates) gateMove(session string, seq int64) bool {
	g := gs.gateOf(session)
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if seq <= g.released {
		return false
	}
	g.released = seq
	return true
}

// gateDecide records d for the update of the events from..seq (joined
// chunks: the ones before seq are dropped, seq shows d).
func (p *Pipeline) gateDecide(session string, from, seq int64, d decision) {
	g := p.gateOf(session)
	if g == nil {
		return
	}
	watchers := p.watchingKeys(session)
	g.mu.Lock()
	defer g.mu.Unlock()
	overrides.Spread(from, seq, d, func(s int64, d decision) { g.decisions[s] = d; g.added++ })
	if g.added < pruneEvery {
		return
	}
	g.added = 0
	// A connection attaching from now on reads these from the log.
	past := int64(math.MaxInt64)
	for _, w := range watchers {
		n, ok := g.projected[w]
		if !ok {
			return // one that has not said how far it is may need any of them
		}
		past = min(past, n)
	}
	for s := range g.decisions {
		if s <= past {
			delete(g.decisions, s)
		}
	}
	// Nothing past seq was decided yet; with no watcher past would be
	// unbounded, and every later decision would look forgotten.
	g.forgot = max(g.forgot, min(past, seq))
}

// Projected records how far conn has projected session, when gated.
func (gs *gates) Projected(session, conn string, seq int64) {
	g := gs.gateOf(session)
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.projected[conn] = seq
}

// decisionOf reads a chain's outcome on the update envelope env: stop
// drops it; a discharge shows its envelope's update (none drops it);
// continue shows the envelope's update when it changed. Errors and
// anything unreadable leave it unchanged (fail-open).
func decisionOf(d Done, env json.RawMessage) (decision, bool) {
	if d.Err != nil {
		return decision{}, false
	}
	if d.Action == "stop" && (!d.Discharged || len(d.Envelope) == 0 || jsonrpc.IsNull(d.Envelope)) {
		return decision{Dropped: true}, true
	}
	if len(d.Envelope) == 0 || bytes.Equal(d.Envelope, env) {
		return decision{}, false
	}
	u, ok := updateOf(d.Envelope)
	if !ok {
		return decision{}, false
	}
	if was, _ := updateOf(env); sameJSON(was, u) {
		return decision{}, false
	}
	return decision{Update: u}, true
}

// updateOf is the update object of a flat {sessionId, update} envelope.
func updateOf(env json.RawMessage) (json.RawMessage, bool) {
	var e struct {
		Update json.RawMessage `json:"update"`
	}
	if json.Unmarshal(env, &e) != nil {
		return nil, false
	}
	u := bytes.TrimSpace(e.Update)
	if len(u) == 0 || u[0] != '{' {
		return nil, false
	}
	var c bytes.Buffer
	if json.Compact(&c, u) != nil {
		return nil, false
	}
	return c.Bytes(), true
}

func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
