package event

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEveryKindHasAPayloadShape(t *testing.T) {
	for _, k := range Kinds() {
		if _, err := DecodePayload(k, json.RawMessage(`{}`)); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if len(payloadOf) != len(known) {
		t.Fatalf("%d payload shapes for %d kinds", len(payloadOf), len(known))
	}
}

func TestDraftValidate(t *testing.T) {
	cases := []struct {
		draft Draft
		err   string
	}{
		{Draft{Kind: RunStarted, Payload: json.RawMessage(`{"run_id":"m1"}`)}, ""},
		{Draft{Kind: "nope", Payload: json.RawMessage(`{}`)}, `unknown event kind "nope"`},
		{Draft{Kind: RunStarted}, "payload must be a JSON object"},
		{Draft{Kind: RunStarted, Payload: json.RawMessage(`[1]`)}, "payload must be a JSON object"},
		{Draft{Kind: RunStarted, Payload: json.RawMessage(`{"run_id":5}`)}, "cannot unmarshal number"},
	}
	for _, c := range cases {
		err := c.draft.Validate()
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s %s: got %v, want %q", c.draft.Kind, c.draft.Payload, err, c.err)
		}
	}
}
