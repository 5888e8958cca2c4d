package jsonrpc

import (
	"encoding/json"
	"testing"
)

// FuzzDecode: every frame yields a message or an error in JSON-RPC's
// shape, and never panics; an error's id is valid JSON.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","id":"a","result":{"outcome":{"outcome":"selected","optionId":"x"}}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`,
		`[{"jsonrpc":"2.0"}]`, `not json`, ``, `{"id":{}}`, `{"jsonrpc":"1.0","id":3,"method":"x"}`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`, `{"jsonrpc":"2.0","id":4,"method":"x","params":3}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, derr := Decode(frame)
		if derr != nil {
			if derr.Err == nil || !json.Valid(derr.ID) {
				t.Fatalf("decode error without a code or with an invalid id: %+v", derr)
			}
			if _, err := json.Marshal(NewErrorAnswer(derr.ID, derr.Err)); err != nil {
				t.Fatalf("error answer does not marshal: %v", err)
			}
			return
		}
		if m.Method == "" && m.ID == nil {
			t.Fatalf("a message with neither method nor id: %+v", m)
		}
	})
}

func TestDecode(t *testing.T) {
	cases := []struct {
		frame string
		code  int
		id    string
	}{
		{`not json`, CodeParseError, "null"},
		{`[1]`, CodeInvalidRequest, "null"},
		{`{"jsonrpc":"1.0","id":7,"method":"x"}`, CodeInvalidRequest, "7"},
		{`{"jsonrpc":"2.0","id":"q","method":""}`, CodeInvalidRequest, `"q"`},
		{`{"jsonrpc":"2.0","id":[1],"method":"x"}`, CodeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":8}`, CodeInvalidRequest, "8"},
		{`{"jsonrpc":"2.0","id":9,"method":"x","params":"s"}`, CodeInvalidRequest, "9"},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, 0, ""},
		{`{"jsonrpc":"2.0","method":"session/cancel"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":3,"result":null}`, 0, ""},
	}
	for _, c := range cases {
		m, derr := Decode([]byte(c.frame))
		if c.code == 0 {
			if derr != nil {
				t.Errorf("%s: unexpected error %v", c.frame, derr.Err)
			}
			if c.frame == `{"jsonrpc":"2.0","method":"session/cancel"}` && m.IsRequest() {
				t.Errorf("%s: a notification read as a request", c.frame)
			}
			continue
		}
		if derr == nil || derr.Err.Code != c.code || string(derr.ID) != c.id {
			t.Errorf("%s: got %+v, want code %d id %s", c.frame, derr, c.code, c.id)
		}
	}
}
