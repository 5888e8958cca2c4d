package acpupdate

import (
	"encoding/json"
	"math"
	"testing"
)

// An event's updates are ev-<seq>.<i> but the last, ev-<seq>, which is
// also the anchor after the whole event; positions order them.
func TestUpdateIDs(t *testing.T) {
	var got []string
	for i := range 3 {
		got = append(got, UpdateID(7, i, 3))
	}
	if want := []string{"ev-7.0", "ev-7.1", "ev-7"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("ids %q, want %q", got, want)
	}
	order := []string{"ev-6", "ev-7.0", "ev-7.1", "ev-7", "ev-8.0"}
	for i := 1; i < len(order); i++ {
		a, okA := ParseID(order[i-1])
		b, okB := ParseID(order[i])
		if !okA || !okB || a.Compare(b) >= 0 {
			t.Errorf("%s (%+v) is not before %s (%+v)", order[i-1], a, order[i], b)
		}
	}
	if p, _ := ParseID("ev-7"); p != (Position{Seq: 7, Index: math.MaxInt}) {
		t.Errorf("ev-7 is %+v", p)
	}
	for _, bad := range []string{"", "ev-", "ev-0", "ev--1", "ev-7.", "ev-7.-1", "ev-x", "msg-7", "ev-7.1.2"} {
		if p, ok := ParseID(bad); ok {
			t.Errorf("%q read as %+v", bad, p)
		}
	}
}

// Stamp counts every update of the event but the state ones, which get no
// id; a rewrite (JSON) is stamped too.
func TestStamp(t *testing.T) {
	us := Stamp(4, []any{&Chunk{SessionUpdate: "user_message_chunk"}, &Usage{SessionUpdate: "usage_update"},
		json.RawMessage(`{"sessionUpdate":"tool_call","messageId":"theirs"}`), &PromptReceived{SessionUpdate: "prompt_received"}})
	if id := us[0].(*Chunk).MessageID; id != "ev-4.0" {
		t.Errorf("chunk %q", id)
	}
	if id := us[2].(map[string]any)["messageId"]; id != "ev-4.1" {
		t.Errorf("rewrite %v", id)
	}
	if id := us[3].(*PromptReceived).MessageID; id != "ev-4" {
		t.Errorf("prompt_received %q", id)
	}
}
