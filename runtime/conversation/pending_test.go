package conversation

import (
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
)

// A prompt joins the history when its run starts (or it is delivered into
// one), with its content as last updated; a cancelled one never does.
func TestPromptsDeliveredFromThePendingFold(t *testing.T) {
	var c Conversation
	seq := int64(0)
	apply := func(kind event.Kind, p any) {
		seq++
		raw, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Apply(event.Event{SessionID: "s", Seq: seq, Kind: kind, Payload: raw}); err != nil {
			t.Fatal(err)
		}
	}
	text := func(s string) []event.Block { return []event.Block{{Type: "text", Text: s}} }
	apply(event.PromptQueued, event.PromptQueuedPayload{MessageID: "a", Content: text("first")})
	apply(event.PromptQueued, event.PromptQueuedPayload{MessageID: "b", Content: text("second"), Delivery: "follow_up"})
	apply(event.PromptQueued, event.PromptQueuedPayload{MessageID: "x", Content: text("dropped")})
	apply(event.PromptUpdated, event.PromptChangedPayload{MessageID: "a", Content: text("first, edited")})
	apply(event.PromptCancelled, event.PromptChangedPayload{MessageID: "x"})
	if !c.Pending("a") || !c.Pending("b") || c.Pending("x") || c.Len() != 0 {
		t.Fatalf("before the run: pending a %v, b %v, x %v; %d messages", c.Pending("a"), c.Pending("b"), c.Pending("x"), c.Len())
	}
	clone := c.Clone()
	apply(event.RunStarted, event.RunStartedPayload{RunID: "a"})
	apply(event.PromptDelivered, event.PromptDeliveredPayload{MessageID: "b", RunID: "a"})
	apply(event.RunStarted, event.RunStartedPayload{RunID: "x"})
	es := c.Entries()
	if len(es) != 2 || es[0].ID != "a" || es[0].Message.Content != "first, edited" || es[1].ID != "b" || es[1].Message.Content != "second" {
		t.Fatalf("entries %+v", es)
	}
	if !clone.Pending("a") || clone.Len() != 0 {
		t.Fatal("the clone saw the original's deliveries")
	}
}
