package llmserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/llm/openai"
)

// call is one Stream call of an equivalence case.
type call struct {
	stream bool
	model  string
	// failAt makes the sink fail on its failAt-th chunk (1-based).
	failAt int
}

var (
	streamed = call{stream: true}
	whole    = call{}
	both     = []call{streamed, whole}
)

func split(s Step, n int) Step {
	c := *s.TextToolCall
	c.Split = n
	s.TextToolCall = &c
	return s
}

func tagged(f TagFormat, in InnerForm) Step {
	return TextToolCall(f, in, "run", json.RawMessage(`{"command":"ls <dir>","n":2,"deep":{"a":[1,"x"]}}`))
}

var ctxOverflow = APIError{
	Status: 400, Message: "request (1528 tokens) exceeds the available context size (1024 tokens), try increasing it",
	Type: "exceed_context_size_error", Extra: json.RawMessage(`{"n_prompt_tokens":1528,"n_ctx":1024}`),
}

// equivalenceCases run through NewProvider and through Start and the
// openai client, and must come out the same.
var equivalenceCases = []struct {
	name   string
	script Script
	calls  []call
}{
	{"text", one(Text("Hello"), Text(""), Text(", world")), both},
	{"empty_reply", one(), both},
	{"request_model", one(Text("x")), []call{{stream: true, model: "big"}}},
	{"thinking", one(Thinking("Let me think."), Thinking(""), Thinking(" Done."), Text("Answer.")), both},
	{"tokens", one(Thinking("t"), Tokens(7, "ab"), Tokens(0, "zz"), Tokens(3, ""), Text("!")), both},
	{"native_tool_calls", one(
		Text("Running tools."),
		ToolCall("call_1", "read_file", `{"path":"go.mod"}`),
		ToolCallChunks("", "run", `{"cmd":`, "", `"ls -la"`, `}`),
		ToolCall("", "noargs", ""),
	), both},
	{"tool_call_finish_stop", one(ToolCall("c", "run", "{}"), Finish("stop")), both},
	{"qwen_json", one(tagged(FormatQwen, InnerJSON)), both},
	{"qwen_json_split", one(Text("Sure. "), split(tagged(FormatQwen, InnerJSON), 4)), both},
	{"gemma_call_split", one(split(tagged(FormatGemma, InnerCall), 5), Finish("stop")), both},
	{"gemma_call_json", one(tagged(FormatGemma, InnerCallJSON)), both},
	{"pipe_call_split", one(split(tagged(FormatPipe, InnerCall), 3)), both},
	{"pipe_json_split_runes", one(split(TextToolCall(FormatPipe, InnerJSON, "say", map[string]string{"text": "héllo wörld ✓"}), 2)), both},
	{"usage_auto", one(Text("hi"), ReportUsage(Usage{PromptTokens: 29, CompletionTokens: 1, CachedTokens: 28})), both},
	{"usage_finish", one(Text("hi"), ReportUsage(Usage{PromptTokens: 29, CompletionTokens: 1, On: UsageOnFinish})), both},
	{"usage_separate_total", one(ReportUsage(Usage{PromptTokens: 29, CompletionTokens: 1, TotalTokens: 99, On: UsageSeparate}), Text("hi")), both},
	{"usage_after_finish", one(Text("cut"), Finish("length"), KeepAlive(), ReportUsage(Usage{PromptTokens: 3, CompletionTokens: 4})), both},
	{"keepalive_delay", one(Delay(time.Millisecond), KeepAlive(), Text("a"), Delay(time.Millisecond), KeepAlive(), Text("b")), both},
	{"http_503", one(Delay(time.Millisecond), HTTPError(APIError{Status: 503, Message: "Loading model"})), both},
	{"http_429", one(HTTPError(APIError{Status: 429, Message: "slow down", Header: map[string]string{"Retry-After": "1"}})), both},
	{"http_400", one(HTTPError(APIError{Status: 400, Message: "bad tools"})), both},
	{"http_500_default", one(HTTPError(APIError{Status: 500})), both},
	{"http_500_deterministic", one(HTTPError(APIError{Status: 500, Message: "Failed to parse messages: x"})), both},
	{"http_501", one(HTTPError(APIError{Status: 501})), both},
	{"http_overloaded", one(HTTPError(APIError{Status: 400, Type: "overloaded_error"})), both},
	{"http_context_overflow", one(HTTPError(ctxOverflow)), both},
	{"http_string_code", one(HTTPError(APIError{Status: 502, Extra: json.RawMessage(`{"code":"bad_gateway"}`)})), both},
	{"stream_error", one(Text("partial"), StreamError(APIError{Message: "model crashed"})), both},
	{"stream_error_first", one(StreamError(APIError{Status: 503})), both},
	{"stream_error_context", one(Thinking("t"), StreamError(ctxOverflow)), both},
	{"stream_error_after_finish", one(Text("done"), Finish("stop"), StreamError(APIError{Status: 500, Message: "boom"})), both},
	{"disconnect", one(Text("partial"), Disconnect()), both},
	{"disconnect_first", one(Delay(time.Millisecond), Disconnect()), both},
	{"disconnect_after_keepalive", one(KeepAlive(), Disconnect()), both},
	{"disconnect_after_finish", one(Text("all"), Finish("stop"), Disconnect()), both},
	{"loading", Script{Loading: 2, Replies: []Reply{Steps(Text("ready"))}}, []call{streamed, whole, streamed}},
	{"exhausted_then_default", Script{
		Replies: []Reply{Steps(Text("first"))},
		Default: &Reply{Steps: []Step{Text("again"), ReportUsage(Usage{PromptTokens: 1})}},
	}, []call{streamed, whole, streamed}},
	{"exhausted", Script{Replies: []Reply{Steps(Text("only"))}}, []call{whole, streamed, whole}},
	{"sink_error_text", one(Text("a"), Text("b"), Text("c")), []call{{stream: true, failAt: 2}}},
	{"sink_error_whole", one(Thinking("a"), Text("b")), []call{{failAt: 2}}},
	{"sink_error_tool", one(ToolCallChunks("", "run", "{", "}")), []call{{stream: true, failAt: 2}, {failAt: 1}}},
	{"sink_error_usage", one(Text("a"), ReportUsage(Usage{PromptTokens: 1})), []call{{stream: true, failAt: 2}, {failAt: 2}}},
	{"sink_error_tokens", one(Tokens(10, "x")), []call{{stream: true, failAt: 4}}},
}

// one makes a script that answers every call with the same reply.
func one(steps ...Step) Script {
	r := Steps(steps...)
	return Script{Default: &r}
}

var errSinkFull = errors.New("sink is full")

// outcome is everything a caller of Stream can observe.
type outcome struct {
	chunks []llm.Chunk
	resp   *llm.Response
	err    error
}

func run(t *testing.T, p llm.Provider, c call) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var o outcome
	req := llm.Request{
		Model:    c.model,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}},
		Stream:   c.stream,
	}
	o.resp, o.err = p.Stream(ctx, req, func(ch llm.Chunk) error {
		o.chunks = append(o.chunks, ch)
		if len(o.chunks) == c.failAt {
			return errSinkFull
		}
		return nil
	})
	return o
}

func TestProviderMatchesClient(t *testing.T) {
	for _, tc := range equivalenceCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prov, err := NewProvider(tc.script)
			if err != nil {
				t.Fatalf("new provider: %v", err)
			}
			srv := startT(t, tc.script)
			client, err := openai.New(openai.Config{
				BaseURL:    srv.URL(),
				HTTPClient: &http.Client{Transport: &http.Transport{}},
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range tc.calls {
				want := run(t, client, c)
				got := run(t, prov, c)
				if tc.name != "exhausted" && want.err != nil && strings.Contains(want.err.Error(), "script exhausted") {
					t.Fatalf("call %d: the case ran out of replies: %v", i, want.err)
				}
				compareOutcomes(t, i, got, want)
			}
		})
	}
}

func compareOutcomes(t *testing.T, i int, got, want outcome) {
	t.Helper()
	if !reflect.DeepEqual(got.chunks, want.chunks) {
		t.Errorf("call %d chunks:\n got %+v\nwant %+v", i, got.chunks, want.chunks)
	}
	if !reflect.DeepEqual(got.resp, want.resp) {
		t.Errorf("call %d response:\n got %+v\nwant %+v", i, got.resp, want.resp)
	}
	if (got.err == nil) != (want.err == nil) {
		t.Fatalf("call %d error: got %v, want %v", i, got.err, want.err)
	}
	if want.err == nil {
		return
	}
	var ge, we *llm.Error
	if errors.As(got.err, &ge) != errors.As(want.err, &we) {
		t.Fatalf("call %d error: got %v, want %v (not both *llm.Error)", i, got.err, want.err)
	}
	if we != nil {
		gc, wc := *ge, *we
		gc.Err, wc.Err = nil, nil
		if gc != wc {
			t.Errorf("call %d error fields:\n got %+v\nwant %+v", i, gc, wc)
		}
	}
	for _, target := range []error{llm.ErrStreamCut, io.EOF, io.ErrUnexpectedEOF, errSinkFull, context.Canceled} {
		if errors.Is(got.err, target) != errors.Is(want.err, target) {
			t.Errorf("call %d: errors.Is(%v) differs:\n got %v\nwant %v", i, target, got.err, want.err)
		}
	}
	// Only a connection error names the URL.
	if we == nil || we.Type != llm.TypeConnection {
		if got.err.Error() != want.err.Error() {
			t.Errorf("call %d error text:\n got %q\nwant %q", i, got.err, want.err)
		}
	}
}
