package overrides

import (
	"context"
	"encoding/json"

	"github.com/troupehq/troupe/persistence/event"
)

// Decision is the chain's verdict on one event's agent update: dropped, or
// Update (an ACP update object) shown instead. Unchanged is no decision.
type Decision struct {
	Dropped bool
	Update  json.RawMessage
}

// Map is a session's decisions by the seq of the event they decide.
type Map map[int64]Decision

// AgentKind reports the events whose session/update the agent makes,
// which go through a response:session/update chain; the daemon's own (the
// prompt, turn_complete, usage, settings, compaction, permissions) do not.
func AgentKind(k event.Kind) bool {
	switch k {
	case event.MessageDelta, event.ToolStarted, event.ToolProgress, event.ToolCompleted:
		return true
	}
	return false
}

// Spread sets d at seq and drops from..seq-1 (from 0: seq alone): a
// decision on chunks joined into one trip shows at the last of them.
func Spread(from, seq int64, d Decision, set func(int64, Decision)) {
	if from <= 0 || from > seq {
		from = seq
	}
	for s := from; s < seq; s++ {
		set(s, Decision{Dropped: true})
	}
	set(seq, d)
}

// FromPayload reads an update.transformed payload into set.
func FromPayload(p *event.UpdateTransformedPayload, set func(int64, Decision)) {
	Spread(p.From, p.Seq, Decision{Dropped: p.Dropped || len(p.Update) == 0, Update: p.Update}, set)
}

// Draft is d's update.transformed draft for the update of the events
// from..seq.
func (d Decision) Draft(from, seq int64) (event.Draft, error) {
	p := event.UpdateTransformedPayload{Seq: seq, Dropped: d.Dropped, Update: d.Update}
	if from < seq {
		p.From = from
	}
	return event.NewDraft(event.UpdateTransformed, p)
}

// Fold adds e's decisions to *m when e is an update.transformed, reporting
// whether it was one. One that does not decode decides nothing.
func (m *Map) Fold(e event.Event) bool {
	if e.Kind != event.UpdateTransformed {
		return false
	}
	var p event.UpdateTransformedPayload
	if e.Decode(&p) != nil {
		return true
	}
	if *m == nil {
		*m = Map{}
	}
	FromPayload(&p, func(s int64, d Decision) { (*m)[s] = d })
	return true
}

// KindLoader reads one kind of a session's events (sessions.Client does,
// through the kind's partial index).
type KindLoader interface {
	LoadKind(ctx context.Context, id string, kind event.Kind, fn func(event.Event) error) error
}

// Read is every decision session id's log holds; nil for none.
func Read(ctx context.Context, store KindLoader, id string) (Map, error) {
	var m Map
	err := store.LoadKind(ctx, id, event.UpdateTransformed, func(e event.Event) error {
		var p event.UpdateTransformedPayload
		if err := e.Decode(&p); err != nil {
			return err
		}
		if m == nil {
			m = Map{}
		}
		FromPayload(&p, func(s int64, d Decision) { m[s] = d })
		return nil
	})
	return m, err
}
