package event

import (
	"reflect"
	"testing"
)

func TestPending(t *testing.T) {
	text := func(s string) []Block { return []Block{{Type: "text", Text: s}} }
	var p Pending
	ids := func() []string {
		var out []string
		for _, e := range p.Entries() {
			out = append(out, e.MessageID)
		}
		return out
	}
	steps := []struct {
		kind    Kind
		payload any
		want    []string
		taken   string
	}{
		{PromptQueued, &PromptQueuedPayload{MessageID: "a", Content: text("one"), Delivery: "prompt"}, []string{"a"}, ""},
		{PromptQueued, &PromptQueuedPayload{MessageID: "b", Content: text("two"), Delivery: "follow_up"}, []string{"a", "b"}, ""},
		{PromptQueued, &PromptQueuedPayload{MessageID: "c", Content: text("three"), Position: "head"}, []string{"c", "a", "b"}, ""},
		{PromptQueued, &PromptQueuedPayload{MessageID: "d", Position: "after", AfterMessageID: "a"}, []string{"c", "a", "d", "b"}, ""},
		{PromptUpdated, &PromptChangedPayload{MessageID: "a", Content: text("one, edited")}, []string{"c", "a", "d", "b"}, ""},
		{PromptUpdated, &PromptChangedPayload{MessageID: "x", Content: text("not queued")}, []string{"c", "a", "d", "b"}, ""},
		{PromptCancelled, &PromptChangedPayload{MessageID: "d"}, []string{"c", "a", "b"}, ""},
		{RunStarted, &RunStartedPayload{RunID: "c"}, []string{"a", "b"}, "c"},
		{RunStarted, &RunStartedPayload{RunID: "r"}, []string{"a", "b"}, ""}, // a run whose prompt this fold never saw
		{PromptDelivered, &PromptDeliveredPayload{MessageID: "b", RunID: "c"}, []string{"a"}, "b"},
		{PromptAmended, &PromptChangedPayload{MessageID: "c", Content: text("running, not here")}, []string{"a"}, ""},
	}
	for i, s := range steps {
		got, ok := p.Apply(s.kind, s.payload)
		if ok != (s.taken != "") || got.MessageID != s.taken {
			t.Fatalf("step %d: delivered %q (%v), want %q", i, got.MessageID, ok, s.taken)
		}
		if !reflect.DeepEqual(ids(), s.want) {
			t.Fatalf("step %d: queue %v, want %v", i, ids(), s.want)
		}
	}
	c := p.Clone()
	got, _ := c.Apply(RunStarted, &RunStartedPayload{RunID: "a"})
	if got.Content[0].Text != "one, edited" || p.Len() != 1 || c.Len() != 0 || !p.Has("a") {
		t.Fatalf("clone: took %+v; original %v", got, ids())
	}
}
