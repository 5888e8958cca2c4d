package rest

import (
	"context"
	"encoding/json"
	"math"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/overrides"
)

// decisions are the response chain's recorded decisions (update.transformed)
// a view applies, by the session whose log holds them (a fork's inherited
// events are its ancestors').
type decisions struct {
	by map[string]overrides.Map
	// The events of session past heldAfter wait on its chain (a read
	// during a turn): not shown, as ACP clients are not shown them yet (the
	// daemon's own updates wait behind the agent's, so the order holds).
	session   string
	heldAfter int64
}

func newDecisions() *decisions {
	return &decisions{by: map[string]overrides.Map{}, heldAfter: math.MaxInt64}
}

// held reports whether e waits on its session's chain.
func (d *decisions) held(e event.Event) bool {
	return e.SessionID == d.session && e.Seq > d.heldAfter
}

// of is the decision on e's agent update, if any.
func (d *decisions) of(e event.Event) (overrides.Decision, bool) {
	if !overrides.AgentKind(e.Kind) {
		return overrides.Decision{}, false
	}
	dec, ok := d.by[e.SessionID][e.Seq]
	return dec, ok
}

// any reports whether some of session id's agent updates are decided.
func (d *decisions) any(id string) bool { return len(d.by[id]) > 0 }

// set records d on session id's event at seq.
func (d *decisions) set(id string, seq int64, dec overrides.Decision) {
	m := d.by[id]
	if m == nil {
		m = overrides.Map{}
		d.by[id] = m
	}
	m[seq] = dec
}

// fold adds e's decisions when it is an update.transformed.
func (d *decisions) fold(e event.Event) {
	m := d.by[e.SessionID]
	if m.Fold(e) {
		d.by[e.SessionID] = m
	}
}

// readDecisions reads session id's decisions before its log is shown (a
// decision is recorded after the event it decides), and folds those of
// the events it inherits. With a gate, the updates it has not released
// yet are held; it is asked first, so that every decision up to where it
// released is durable by the read.
func readDecisions(ctx context.Context, s *sessions.Client, gate Gate, id string, inherited []event.Event) (*decisions, error) {
	d := newDecisions()
	// A gate that has not learned where it starts (released -1: its link
	// not yet subscribed) holds nothing a reader should wait on.
	if gate != nil {
		if released := gate.Released(id); released >= 0 {
			d.session, d.heldAfter = id, released
		}
	}
	m, err := overrides.Read(ctx, s, id)
	if err != nil {
		return nil, err
	}
	if m != nil {
		d.by[id] = m
	}
	for _, e := range inherited {
		d.fold(e)
	}
	return d, nil
}

// decided shows a decision in place of an event's updates as recorded: a
// drop shows nothing, a rewrite the update recorded instead. One that is
// not an update object shows the event as recorded (fail-open, as ACP).
// The rewrite is the event's one update: its id is the event's (seq; 0
// where no id is shown).
func decided(d overrides.Decision, seq int64, recorded []update) []update {
	if d.Dropped {
		return nil
	}
	var body map[string]any
	if json.Unmarshal(d.Update, &body) != nil || body == nil {
		return recorded
	}
	kind, _ := body["sessionUpdate"].(string)
	if seq > 0 {
		acpupdate.Stamp(seq, []any{body})
	}
	msg, _ := body["messageId"].(string)
	return []update{{kind: kind, messageID: msg, body: body}}
}
