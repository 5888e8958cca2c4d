package llm

import (
	"errors"
	"reflect"
	"testing"
)

// recorder is a sink that keeps every chunk.
type recorder struct{ chunks []Chunk }

func (r *recorder) sink(c Chunk) error {
	r.chunks = append(r.chunks, c)
	return nil
}

// piece is one call to an Assembler, made through the string or the byte
// methods so that both can be checked to behave the same.
type piece struct {
	kind           ChunkKind
	text           string
	index          int
	id, name, args string
}

func feed(t *testing.T, a *Assembler, bytes bool, pieces []piece) {
	t.Helper()
	for _, p := range pieces {
		var err error
		switch {
		case p.kind == ChunkToolCall && bytes:
			err = a.ToolCallBytes(p.index, []byte(p.id), []byte(p.name), []byte(p.args))
		case p.kind == ChunkToolCall:
			err = a.ToolCall(p.index, p.id, p.name, p.args)
		case bytes:
			err = a.TextBytes(p.kind, []byte(p.text))
		default:
			err = a.Text(p.kind, p.text)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestAssemblerChunksAndResponse(t *testing.T) {
	pieces := []piece{
		{kind: ChunkThinking, text: "hmm"},
		{kind: ChunkText, text: ""},
		{kind: ChunkText, text: "Hello"},
		{kind: ChunkToolCall, index: 1, id: "", name: "run", args: `{"cmd":`},
		{kind: ChunkToolCall, index: 0, id: "c0", name: "read", args: ""},
		{kind: ChunkToolCall, index: 1, id: "", name: "", args: ""},
		{kind: ChunkToolCall, index: 1, id: "call_1", name: "run", args: `"ls"}`},
		{kind: ChunkToolCall, index: 0, id: "c0b", name: "", args: "{}"},
		{kind: ChunkText, text: ", world"},
	}
	wantChunks := []Chunk{
		{Kind: ChunkThinking, Text: "hmm"},
		{Kind: ChunkText, Text: "Hello"},
		{Kind: ChunkToolCall, ToolCall: ToolCallDelta{Index: 1, ID: "call_1", Name: "run", ArgumentsDelta: `{"cmd":`}},
		{Kind: ChunkToolCall, ToolCall: ToolCallDelta{Index: 0, ID: "c0", Name: "read"}},
		// The repeated id and name are not news, so only the arguments go on.
		{Kind: ChunkToolCall, ToolCall: ToolCallDelta{Index: 1, ArgumentsDelta: `"ls"}`}},
		{Kind: ChunkToolCall, ToolCall: ToolCallDelta{Index: 0, ID: "c0b", ArgumentsDelta: "{}"}},
		{Kind: ChunkText, Text: ", world"},
		{Kind: ChunkUsage, Usage: Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7}},
	}
	wantResp := &Response{
		Message: Message{
			Role: RoleAssistant, Content: "Hello, world", Thinking: "hmm",
			ToolCalls: []ToolCall{
				{ID: "c0b", Name: "read", Arguments: "{}"},
				{ID: "call_1", Name: "run", Arguments: `{"cmd":"ls"}`},
			},
		},
		FinishReason: FinishToolCalls,
		Usage:        &Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7},
		ID:           "chatcmpl-1",
		Model:        "tiny",
	}
	for _, bytes := range []bool{false, true} {
		var rec recorder
		a := &Assembler{Sink: rec.sink, ID: "chatcmpl-1", Model: "tiny"}
		feed(t, a, bytes, pieces)
		a.Finish = FinishToolCalls
		if err := a.SetUsage(Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rec.chunks, wantChunks) {
			t.Errorf("bytes=%v: chunks\n got %+v\nwant %+v", bytes, rec.chunks, wantChunks)
		}
		if got := a.Response(); !reflect.DeepEqual(got, wantResp) {
			t.Errorf("bytes=%v: response\n got %+v\nwant %+v", bytes, got, wantResp)
		}

		// Without a sink the same reply is assembled.
		quiet := &Assembler{ID: "chatcmpl-1", Model: "tiny", Finish: FinishToolCalls}
		feed(t, quiet, bytes, pieces)
		_ = quiet.SetUsage(Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7})
		if got := quiet.Response(); !reflect.DeepEqual(got, wantResp) {
			t.Errorf("bytes=%v, no sink: response\n got %+v\nwant %+v", bytes, got, wantResp)
		}
	}
}

func TestAssemblerEmptyReply(t *testing.T) {
	var a Assembler
	r := a.Response()
	if r.Usage != nil || r.Message.ToolCalls != nil || r.Message.Role != RoleAssistant || r.Message.Content != "" {
		t.Fatalf("empty reply: %+v", r)
	}
}

func TestAssemblerBytesAreCopied(t *testing.T) {
	var rec recorder
	a := &Assembler{Sink: rec.sink}
	buf := []byte("abc")
	if err := a.TextBytes(ChunkText, buf); err != nil {
		t.Fatal(err)
	}
	if err := a.ToolCallBytes(0, buf, buf, buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, "xyz")
	r := a.Response()
	if r.Message.Content != "abc" || rec.chunks[0].Text != "abc" {
		t.Fatalf("text follows the reused buffer: %q, %q", r.Message.Content, rec.chunks[0].Text)
	}
	if c := r.Message.ToolCalls[0]; c != (ToolCall{ID: "abc", Name: "abc", Arguments: "abc"}) {
		t.Fatalf("tool call follows the reused buffer: %+v", c)
	}
}

func TestAssemblerSinkErrorIsWrapped(t *testing.T) {
	stop := errors.New("stop")
	a := &Assembler{Sink: func(Chunk) error { return stop }}
	for name, err := range map[string]error{
		"text":       a.Text(ChunkText, "x"),
		"text bytes": a.TextBytes(ChunkThinking, []byte("x")),
		"tool call":  a.ToolCall(0, "id", "f", ""),
		"call bytes": a.ToolCallBytes(1, nil, []byte("f"), nil),
		"usage":      a.SetUsage(Usage{}),
	} {
		if !errors.Is(err, stop) || err.Error() != "sink: stop" {
			t.Errorf("%s: got %v, want sink: stop", name, err)
		}
	}
}

// TestAssemblerBytesAllocations holds the promise the frame parser relies
// on: a repeated id or name costs nothing, and without a sink neither do
// text and arguments (beyond the amortised growth of the totals).
func TestAssemblerBytesAllocations(t *testing.T) {
	id, name, args := []byte("call_abc"), []byte("run"), []byte(`"x"`)
	withSink := &Assembler{Sink: func(Chunk) error { return nil }}
	_ = withSink.ToolCallBytes(0, id, name, nil)
	if n := testing.AllocsPerRun(1000, func() {
		_ = withSink.ToolCallBytes(0, id, name, nil)
	}); n != 0 {
		t.Errorf("repeated id and name: %v allocations", n)
	}
	var quiet Assembler
	_ = quiet.ToolCallBytes(0, id, name, args)
	if n := testing.AllocsPerRun(1000, func() {
		_ = quiet.ToolCallBytes(0, id, name, args)
		_ = quiet.TextBytes(ChunkText, args)
	}); n != 0 {
		t.Errorf("no sink: %v allocations", n)
	}
}
