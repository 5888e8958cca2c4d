package jsonstream

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Command
		err  string // the protocol_error message; "" when it parses
		id   string // the msg_id echoed with the error
	}{
		{line: `{"type":"message","msg_id":"m1","input":"hi","files":["/a.png"]}`, want: Command{Type: CmdMessage, MsgID: "m1", Input: "hi", Files: []string{"/a.png"}}},
		{line: `{"type":"message","msg_id":"m1","content":"hi"}`, want: Command{Type: CmdMessage, MsgID: "m1", Input: "hi"}},
		{line: "{\"type\":\"stop\"}\r", want: Command{Type: CmdStop}},
		{line: `{"type":"tool_approve","call_id":"t1","scope":"always"}`, want: Command{Type: CmdToolApprove, CallID: "t1", Always: true}},
		{line: `{"type":"tool_approve","call_id":"t1"}`, want: Command{Type: CmdToolApprove, CallID: "t1"}},
		{line: `{"type":"tool_deny","call_id":"t1","reason":"no"}`, want: Command{Type: CmdToolDeny, CallID: "t1", Reason: "no"}},
		{line: `{"type":"init_history","text":"before"}`, want: Command{Type: CmdInitHistory, Text: "before"}},
		{line: `{"type":"set_mode","mode":"auto_edit","extra":1}`, want: Command{Type: CmdSetMode, Mode: "auto_edit"}},
		{line: ``, err: "empty line: expected a JSON object"},
		{line: `null`, err: "malformed JSON: expected one JSON object per line"},
		{line: `{"msg_id":"m9"}`, err: `missing field "type"`, id: "m9"},
		{line: `{"type":"message","msg_id":"m2","input":3}`, err: `field "input" must be a string`, id: "m2"},
		{line: `{"type":"message","msg_id":"","input":"x"}`, err: `field "msg_id" must not be empty`},
		{line: `{"type":"message","msg_id":"m3","input":"x","files":"a"}`, err: `field "files" must be an array of strings`, id: "m3"},
		{line: `{"type":"tool_approve","call_id":"t","scope":"forever"}`, err: `field "scope" must be "once" or "always", not "forever"`},
		{line: `{"type":"tool_deny"}`, err: `missing field "call_id"`},
		{line: `{"type":"set_config","model":"x"}`, err: "Unknown command type: set_config"},
		{line: `{"type":1}`, err: `field "type" must be a string`},
	} {
		got, err := Decode([]byte(tc.line))
		if tc.err != "" {
			if err == nil {
				t.Fatalf("%s: parsed as %+v, want error %q", tc.line, got, tc.err)
			}
			testkit.Equal(t, err.Message, tc.err)
			testkit.Equal(t, err.MsgID, tc.id)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		testkit.DeepEqual(t, got, tc.want)
	}
}

// FuzzDecode: no input panics, and every input either parses into a known
// command or yields a protocol_error that marshals.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","msg_id":"m1","input":"hi"}`, `{"type":"stop"}`, `{"type":"tool_approve","call_id":"t","scope":"always"}`,
		`{"type":"tool_deny","call_id":"t"}`, `{"type":"init_history","text":"x"}`, `{"type":"set_mode","mode":"yolo"}`, `{`, ``, `[]`,
	} {
		f.Add([]byte(s))
	}
	known := []string{CmdMessage, CmdStop, CmdToolApprove, CmdToolDeny, CmdInitHistory, CmdSetMode, CmdPing}
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := Decode(line)
		if err != nil {
			ev := err.Event()
			b, merr := json.Marshal(ev)
			if merr != nil || ev.Error.Code != CodeProtocol || err.Message == "" {
				t.Fatalf("bad protocol_error for %q: %s %v", line, b, merr)
			}
			return
		}
		if !slices.Contains(known, c.Type) {
			t.Fatalf("%q parsed into unknown type %q", line, c.Type)
		}
		if c.Type == CmdMessage && c.MsgID == "" {
			t.Fatalf("%q: a message without msg_id", line)
		}
	})
}
