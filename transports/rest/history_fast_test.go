package rest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

// The delta fast path writes exactly what the generic path does.
func TestDeltaLineMatchesTheGenericLine(t *testing.T) {
	for _, d := range []event.MessageDeltaPayload{
		{RunID: "r", MessageID: "m1", Channel: event.ChannelText, Text: "héllo \"<world>\"\n\t\u2028"},
		{RunID: "r", MessageID: "", Channel: event.ChannelThinking, Text: ""},
	} {
		dr, err := event.NewDraft(event.MessageDelta, d)
		testkit.NoError(t, err)
		e := event.Event{SessionID: "s", Seq: 7, RecordedAt: time.UnixMilli(1234567), Kind: dr.Kind, Payload: dr.Payload}
		fast, ok := deltaLine(nil, "s", e, newProjector("s", nil, nil).m.View.StreamingID)
		if !ok {
			t.Fatal("fast path refused a text delta")
		}
		u := newProjector("s", nil, nil).project(e)[0]
		want, err := json.Marshal(historyLine{Seq: 7, RecordedAt: 1234567, Method: "session/update", Params: historyParams{SessionID: "s", Update: u.body}})
		testkit.NoError(t, err)
		testkit.Equal(t, string(fast), string(want)+"\n")
	}
}
