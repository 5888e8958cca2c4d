package projection

import (
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
)

var deltaSeeds = []string{
	`{"run_id":"r","message_id":"m","index":3,"channel":"text","text":"tok "}`,
	`{"run_id":"r","message_id":"m","index":0,"channel":"tool_call_args","text":"{\"a\":1}","tool_call_id":"c1","tool_name":"read"}`,
	"{ \"run_id\" : \"r\" ,\n\"text\":\"a\\nb\\t\\\"c\\\\ \\/ \\u00e9 \\ud83d\\ude00 \\ud83d x \\udc00\\u2028\",\"index\":-12}",
	`{"run_id":"r","text":"héllo ✓ 😀","index":9223372036854775807}`,
	`{"Run_ID":"r","text":"case"}`,
	`{"run_id":null,"text":"n"}`,
	`{"run_id":"r","extra":{"x":[1,2]},"text":"t"}`,
	`{"run_id":"r","run_id":"s","text":"dup"}`,
	`{"index":1.0}`, `{"index":1e2}`, `{"index":01}`, `{"index":99999999999999999999}`, `{"index":"1"}`,
	`{"text":"\x01"}`, "{\"text\":\"\xff\"}", `{"text":"\q"}`, `{"text":"\u12"}`, `{"text":"a"} x`, `{"text":"a",}`,
	`{}`, ``, `[]`, `{"text":"a"`, `{"text"}`, `{"text":1}`,
}

// The hand-written decoding reads every payload as json.Unmarshal would:
// the same fields, and an error on the same inputs.
func FuzzDecodeDelta(f *testing.F) {
	for _, s := range deltaSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want event.MessageDeltaPayload
		wantErr := json.Unmarshal(raw, &want)
		// A previous delta's strings are reused only when equal.
		got := event.MessageDeltaPayload{RunID: "r", MessageID: "m", Channel: "text", ToolCallID: "c1", ToolName: "read", Text: "old", Index: 7}
		err := decodeDelta(raw, &got)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, json.Unmarshal's %v", raw, err, wantErr)
		}
		if err == nil && got != want {
			t.Fatalf("%q: decoded %+v, json.Unmarshal %+v", raw, got, want)
		}
	})
}

// The payloads the engine writes take the hand-written path: nothing is
// allocated but the text.
func TestDecodeDeltaAllocatesOnlyTheText(t *testing.T) {
	raw := []byte(`{"run_id":"r1","message_id":"m1","index":0,"channel":"text","text":"tok "}`)
	var d event.MessageDeltaPayload
	if err := decodeDelta(raw, &d); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := decodeDelta(raw, &d); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Fatalf("%v allocations per delta, want at most 1", allocs)
	}
	if d.Text != "tok " || d.RunID != "r1" || d.Channel != "text" {
		t.Fatalf("decoded %+v", d)
	}
}
