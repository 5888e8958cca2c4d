package jsonrpc

import (
	"encoding/json"
	"testing"
)

// TestWireBytes pins the bytes each written shape marshals to: the
// golden transcripts of every JSON-RPC speaker depend on this order.
func TestWireBytes(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{NewRequest(IntID(7), "session/request_permission", map[string]any{"a": 1}), `{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"a":1}}`},
		{NewNotification("session/update", nil), `{"jsonrpc":"2.0","method":"session/update","params":null}`},
		{NewResult(json.RawMessage(`"x"`), nil), `{"jsonrpc":"2.0","id":"x","result":null}`},
		{NewErrorAnswer(nil, NewError(CodeParseError, "parse error")), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{NewErrorAnswer(IntID(3), NewErrorData(CodeInternal, "failed", map[string]any{"retryable": true, "errorKind": "disk_full"})),
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"failed","data":{"errorKind":"disk_full","retryable":true}}}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatalf("%T: %v", c.v, err)
		}
		if string(b) != c.want {
			t.Errorf("%T:\n got %s\nwant %s", c.v, b, c.want)
		}
	}
}

// TestMessageRoundTrip: a client's lenient read keeps the id and the
// error's data byte for byte.
func TestMessageRoundTrip(t *testing.T) {
	var m Message
	if err := json.Unmarshal([]byte(`{"jsonrpc":"2.0","id":"a-1","error":{"code":-32001,"message":"gone","data":{"k":[1,2]}}}`), &m); err != nil {
		t.Fatal(err)
	}
	if string(m.ID) != `"a-1"` || m.Error == nil || m.Error.Code != -32001 || string(m.Error.Data) != `{"k":[1,2]}` || !m.IsResponse() {
		t.Fatalf("read %+v", m)
	}
	if !(Message{ID: IntID(4)}).Answers(4) || (Message{ID: IntID(4), Method: "x"}).Answers(4) {
		t.Fatal("Answers")
	}
}
