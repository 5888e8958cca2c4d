package acpclient

import (
	"fmt"
	"runtime"
	"testing"
)

// Frames as the daemon sends them during one turn.
var turn = []string{
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"prompt_received","messageId":"m1"},"_meta":{"hydra-acp":{"messageId":"ev-3"}}}}`,
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello"}},"_meta":{"hydra-acp":{"messageId":"ev-4"}}}}`,
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"available_commands_update"}}}`,
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":" both"}},"_meta":{"hydra-acp":{"messageId":"ev-5"}}}}`,
	`{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}`,
}

func parseAll(t testing.TB, lines ...string) []Frame {
	var fs []Frame
	for _, l := range lines {
		fs = append(fs, Parse(t, []byte(l)))
	}
	return fs
}

func TestFrameHelpers(t *testing.T) {
	fs := parseAll(t, turn...)
	if got := Chunks(t, fs); got != "Hello both" {
		t.Fatalf("Chunks = %q", got)
	}
	if got := Count(fs, "agent_message_chunk"); got != 2 {
		t.Fatalf("Count = %d", got)
	}
	if !fs[4].Answers(7) || fs[4].Answers(8) || fs[0].Answers(7) {
		t.Fatal("Answers matches the response to 7 alone")
	}
	var res struct{ StopReason string }
	fs[4].Decode(t, &res)
	if res.StopReason != "end_turn" || fs[4].Raw != turn[4] {
		t.Fatalf("Decode %+v, Raw %s", res, fs[4].Raw)
	}
	if u := fs[0].Update(t); u.SessionID != "s1" || u.Update.MessageID != "m1" || MessageSeq(t, fs[0]) != 3 {
		t.Fatalf("Update %+v", u)
	}
	RequireIncreasing(t, fs)
}

// fatalTB records the first Fatalf and stops the goroutine, as testing's
// does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// failure runs check with a TB that records its failure.
func failure(t *testing.T, check func(testing.TB)) string {
	ft := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(ft)
	}()
	<-done
	return ft.msg
}

func TestFrameHelpersFail(t *testing.T) {
	twice := parseAll(t, turn[1], turn[0])
	if msg := failure(t, func(tb testing.TB) { RequireIncreasing(tb, twice) }); msg == "" {
		t.Fatal("RequireIncreasing passed ev-4 then ev-3")
	}
	errAnswer := parseAll(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad params"}}`)[0]
	if msg := failure(t, func(tb testing.TB) { errAnswer.Decode(tb, &struct{}{}) }); msg != "error answer: -32602 bad params" {
		t.Fatalf("Decode of an error answer: %q", msg)
	}
	if msg := failure(t, func(tb testing.TB) { Parse(tb, []byte("{oops")) }); msg == "" {
		t.Fatal("Parse accepted {oops")
	}
	if msg := failure(t, func(tb testing.TB) { MessageSeq(tb, parseAll(t, turn[2])[0]) }); msg == "" {
		t.Fatal("MessageSeq of an update without an anchor")
	}
}

// A tool call's update carries its content as an array: the anchor is
// read all the same.
func TestMessageSeqOfToolCallUpdate(t *testing.T) {
	f := Parse(t, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c2","status":"in_progress","content":[{"type":"content","content":{"type":"text","text":"y"}}]},"_meta":{"hydra-acp":{"messageId":"ev-6007"}}}}`))
	if n := MessageSeq(t, f); n != 6007 {
		t.Fatalf("MessageSeq = %d", n)
	}
	RequireIncreasing(t, append(parseAll(t, turn...), f))
}
