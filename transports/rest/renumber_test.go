package rest

import (
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
)

// A fork's bundle holds its ancestor's log, then its own, each numbered
// from the start: a decision is renumbered against its own log's events,
// and one whose event is not in the bundle is left out.
func TestRenumberFollowsEachLog(t *testing.T) {
	payload := func(seq, from int64) json.RawMessage {
		b, _ := json.Marshal(event.UpdateTransformedPayload{Seq: seq, From: from, Dropped: true})
		return b
	}
	decided := func(b json.RawMessage) (seq, from int64) {
		var p event.UpdateTransformedPayload
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		return p.Seq, p.From
	}
	var r renumber
	// The ancestor's part: its events 2..4 become 2..4, a transformer's
	// attach (seq 5) is not imported, 6 becomes 5.
	for src := int64(2); src <= 4; src++ {
		r.add(src, src)
	}
	r.add(6, 5)
	b, ok := r.transformed(7, payload(6, 3))
	if s, f := decided(b); !ok || s != 5 || f != 3 {
		t.Fatalf("ancestor's decision: %v seq %d from %d", ok, s, f)
	}
	r.add(7, 6)
	if _, ok := r.transformed(8, payload(5, 0)); ok {
		t.Fatal("a decision on an event not in the bundle was kept")
	}
	// The fork's own log starts again at 2.
	r.add(2, 7)
	r.add(3, 8)
	b, ok = r.transformed(4, payload(3, 2))
	if s, f := decided(b); !ok || s != 8 || f != 7 {
		t.Fatalf("own decision: %v seq %d from %d", ok, s, f)
	}
	if _, ok := r.transformed(2, payload(3, 0)); ok {
		t.Fatal("a decision opening a log was kept")
	}
}
