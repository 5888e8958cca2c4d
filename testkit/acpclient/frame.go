package acpclient

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/troupehq/troupe/transports/jsonrpc"
)

// Frame is one JSON-RPC message received, decoded enough to match on.
type Frame struct {
	jsonrpc.Message
	// Raw is the message as it came, for failure messages and byte-exact
	// comparisons.
	Raw string `json:"-"`
}

// Parse decodes one message; Raw keeps b.
func Parse(t testing.TB, b []byte) Frame {
	t.Helper()
	var f Frame
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("not a JSON-RPC message: %s: %v", b, err)
	}
	f.Raw = string(b)
	return f
}

// IsUpdate reports a session/update of the given sessionUpdate kind.
func (f Frame) IsUpdate(kind string) bool {
	return f.Method == "session/update" && strings.Contains(string(f.Params), `"sessionUpdate":"`+kind+`"`)
}

// Decode decodes a successful answer's result into v; an error answer
// fails the test.
func (f Frame) Decode(t testing.TB, v any) {
	t.Helper()
	if f.Error != nil {
		t.Fatalf("error answer: %d %s", f.Error.Code, f.Error.Message)
	}
	if err := json.Unmarshal(f.Result, v); err != nil {
		t.Fatalf("decode result %s: %v", f.Result, err)
	}
}

// DecodeParams decodes a notification's or request's params into v.
func (f Frame) DecodeParams(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(f.Params, v); err != nil {
		t.Fatalf("%s params %s: %v", f.Method, f.Params, err)
	}
}
