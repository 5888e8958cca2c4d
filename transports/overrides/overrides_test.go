package overrides

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// A decision on joined chunks drops all but the last, which shows it; an
// update.transformed without from covers its seq alone.
func TestSpread(t *testing.T) {
	got := Map{}
	Spread(4, 6, Decision{Update: json.RawMessage(`{}`)}, func(s int64, d Decision) { got[s] = d })
	if len(got) != 3 || !got[4].Dropped || !got[5].Dropped || got[6].Dropped || string(got[6].Update) != "{}" {
		t.Fatalf("Spread(4, 6): %+v", got)
	}
	got = Map{}
	Spread(0, 9, Decision{Dropped: true}, func(s int64, d Decision) { got[s] = d })
	if len(got) != 1 || !got[9].Dropped {
		t.Fatalf("Spread(0, 9): %+v", got)
	}
}

// An update.transformed event folds into the decisions it records; any
// other event folds nothing.
func TestFold(t *testing.T) {
	var m Map
	other := event.Event{Seq: 3, Kind: event.RunEnded, Payload: json.RawMessage(`{}`), RecordedAt: time.Now()}
	if m.Fold(other) || m != nil {
		t.Fatalf("a run.ended folded: %v", m)
	}
	d, err := Decision{Update: json.RawMessage(`{"sessionUpdate":"agent_message_chunk"}`)}.Draft(5, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Fold(event.Event{Seq: 8, Kind: d.Kind, Payload: d.Payload}) {
		t.Fatal("update.transformed not folded")
	}
	if len(m) != 3 || !m[5].Dropped || !m[6].Dropped || m[7].Dropped || string(m[7].Update) != `{"sessionUpdate":"agent_message_chunk"}` {
		t.Fatalf("folded %+v", m)
	}
	if !AgentKind(event.ToolCompleted) || AgentKind(event.RunEnded) {
		t.Fatal("AgentKind: tool.completed is the agent's, run.ended the daemon's")
	}
}
