package event

import (
	"encoding/json"
	"testing"
)

// A log of both forms folds: an event carrying the whole set replaces
// it, a delta applies to what came before.
func TestAttentionApplyBothForms(t *testing.T) {
	var cur []AttentionFlag
	old := AttentionPayload{Flags: []string{"permission"}, Set: []AttentionFlag{{Source: "p", Reason: "a", RaisedAt: 5}}}
	cur = old.Apply(cur, 9)
	if len(cur) != 2 || cur[0].Source != "daemon" || cur[0].RaisedAt != 9 || cur[1].Reason != "a" {
		t.Fatalf("old form: %+v", cur)
	}
	steps := []struct {
		d       AttentionDelta
		want    int
		changed bool
	}{
		{AttentionDelta{Flag: AttentionFlag{Source: "p", Reason: "b", RaisedAt: 10}}, 3, true},
		{AttentionDelta{Flag: AttentionFlag{Source: "p", Reason: "a", RaisedAt: 11, Payload: json.RawMessage(`{"x":1}`)}}, 3, true},
		{AttentionDelta{Flag: AttentionFlag{Source: "p", Reason: "a", RaisedAt: 12, Payload: json.RawMessage(`{ "x": 1 }`)}}, 3, false},
		{AttentionDelta{Clear: true, Flag: AttentionFlag{Source: "q"}}, 3, false},
		{AttentionDelta{Clear: true, Flag: AttentionFlag{Source: "p", Reason: "b"}}, 2, true},
		{AttentionDelta{Clear: true, Flag: AttentionFlag{Source: "p"}}, 1, true},
		{AttentionDelta{Clear: true}, 0, true},
	}
	for i, s := range steps {
		before := append([]AttentionFlag{}, cur...)
		next, changed := s.d.Apply(cur)
		if len(next) != s.want || changed != s.changed {
			t.Fatalf("step %d: %+v changed %v", i, next, changed)
		}
		if len(cur) != len(before) {
			t.Fatalf("step %d modified its input", i)
		}
		if i == 1 && (next[1].RaisedAt != 5 || string(next[1].Payload) != `{"x":1}`) {
			t.Fatalf("an update keeps place and raisedAt: %+v", next[1])
		}
		p := AttentionPayload{Change: &s.d}
		if folded := p.Apply(cur, 99); len(folded) != len(next) {
			t.Fatalf("step %d: payload fold %+v, delta %+v", i, folded, next)
		}
		cur = next
	}
}
