package session

import (
	"slices"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// The chain is session.created's, then each transformer.attached once;
// a state handed out keeps the chain it had.
func TestFoldKeepsChainAndChildOf(t *testing.T) {
	var s State
	apply := func(seq int64, kind event.Kind, payload any) {
		t.Helper()
		d, err := event.NewDraft(kind, payload)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Apply(event.Event{Seq: seq, Kind: kind, Payload: d.Payload, RecordedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	apply(1, event.SessionCreated, event.CreatedPayload{Transformers: []string{"a"}, ChildOf: "p"})
	before := s
	apply(2, event.TransformerAttached, event.TransformerAttachedPayload{Name: "b"})
	apply(3, event.TransformerAttached, event.TransformerAttachedPayload{Name: "a"})
	if !slices.Equal(s.Transformers, []string{"a", "b"}) || s.ChildOf != "p" {
		t.Fatalf("chain %v, child of %q", s.Transformers, s.ChildOf)
	}
	if !slices.Equal(before.Transformers, []string{"a"}) {
		t.Fatalf("an earlier state's chain changed: %v", before.Transformers)
	}
	m := s.Meta("live")
	if !slices.Equal(m.Transformers, s.Transformers) || m.ChildOf != "p" || !metaChanging(event.TransformerAttached) {
		t.Fatalf("snapshot %+v", m)
	}
}
