package llmserver

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

const (
	streamReq      = `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":true}`
	streamUsageReq = `{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`
	plainReq       = `{"model":"tiny","messages":[{"role":"user","content":"hi"}]}`
	noModelReq     = `{"messages":[{"role":"user","content":"hi"}],"stream":true}`
)

// goldenCases cover every step kind, streamed and not. Each golden file
// holds the status, the headers a client looks at, how reading ended, a
// blank line and the body bytes exactly.
var goldenCases = []struct {
	name  string
	reply Reply
	req   string
}{
	{"stream_text", Steps(Text("Hello"), Text(", world")), streamReq},
	{"stream_empty_reply", Steps(), streamReq},
	{"stream_default_model", Steps(Text("x")), noModelReq},
	{"stream_thinking", Steps(Thinking("Let me think."), Thinking(" Done."), Text("Answer.")), streamReq},
	{"stream_finish_length", Steps(Text("cut"), Finish("length")), streamReq},
	{"stream_usage_auto", Steps(Text("hi"), ReportUsage(Usage{PromptTokens: 29, CompletionTokens: 1, CachedTokens: 28})), streamReq},
	{"stream_usage_auto_include", Steps(Text("hi"), ReportUsage(Usage{PromptTokens: 29, CompletionTokens: 1})), streamUsageReq},
	{"stream_usage_on_finish", Steps(Text("hi"), ReportUsage(Usage{PromptTokens: 29, CompletionTokens: 1, On: UsageOnFinish})), streamUsageReq},
	{"stream_usage_separate", Steps(Text("hi"), ReportUsage(Usage{PromptTokens: 29, CompletionTokens: 1, TotalTokens: 99, On: UsageSeparate})), streamReq},
	{"stream_tool_call", Steps(ToolCall("call_1", "read_file", `{"path":"go.mod"}`)), streamReq},
	{"stream_tool_calls_chunks_empty_id", Steps(
		Text("Running two tools."),
		ToolCallChunks("", "run", `{"cmd":`, `"ls -la"`, `}`),
		ToolCall("", "read_file", ""),
	), streamReq},
	{"stream_text_tool_call_split", Steps(
		func() Step {
			s := TextToolCall(FormatGemma, InnerCall, "run", json.RawMessage(`{"command":"ls <dir>","n":2}`))
			s.TextToolCall.Split = 5
			return s
		}(),
		Finish("stop"),
	), streamReq},
	{"stream_keepalive_delay", Steps(Delay(5*time.Millisecond), KeepAlive(), Text("a"), Delay(5*time.Millisecond), KeepAlive(), Text("b")), streamReq},
	{"stream_error", Steps(Text("partial"), StreamError(APIError{Message: "model crashed"})), streamReq},
	{"stream_error_context", Steps(Text("partial"), StreamError(APIError{
		Status: 400, Message: "context full", Type: "exceed_context_size_error",
		Extra: json.RawMessage(`{"n_prompt_tokens":1528,"n_ctx":1024}`),
	})), streamReq},
	{"stream_disconnect", Steps(Text("partial"), Disconnect()), streamReq},
	{"stream_disconnect_before_done", Steps(Text("all"), Finish("stop"), Disconnect()), streamReq},
	{"stream_disconnect_first", Steps(Disconnect()), streamReq},
	{"http_error_loading", Steps(Delay(time.Millisecond), HTTPError(APIError{Status: 503, Message: "Loading model"})), streamReq},
	{"http_error_rate_limit", Steps(HTTPError(APIError{Status: 429, Message: "slow down", Header: map[string]string{"Retry-After": "1"}})), streamReq},
	{"http_error_server", Steps(HTTPError(APIError{Status: 500})), plainReq},
	{"http_error_context", Steps(HTTPError(APIError{
		Status: 400, Message: "request (1528 tokens) exceeds the available context size (1024 tokens), try increasing it",
		Type: "exceed_context_size_error", Extra: json.RawMessage(`{"n_prompt_tokens":1528,"n_ctx":1024}`),
	})), plainReq},
	{"plain_text_usage", Steps(Thinking("hmm"), Text("Hello"), Text(" there"), KeepAlive(), ReportUsage(Usage{PromptTokens: 10, CompletionTokens: 2, CachedTokens: 4})), plainReq},
	{"plain_tool_calls", Steps(ToolCall("call_1", "read_file", `{"path":"a"}`), ToolCallChunks("", "run", `{"cmd":`, `"ls"}`)), plainReq},
	{"plain_text_and_tool_call", Steps(Text("Let me check."), ToolCall("call_9", "run", `{}`), Finish("tool_calls")), plainReq},
	{"plain_text_tool_call", Steps(TextToolCall(FormatQwen, InnerJSON, "read_file", map[string]any{"path": "/tmp/foo.py"})), plainReq},
	{"plain_stream_error", Steps(Text("partial"), StreamError(APIError{Status: 500, Message: "boom"})), plainReq},
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			s := startT(t, Script{Replies: []Reply{c.reply}})
			got := goldenText(postChat(t, s, c.req))
			path := filepath.Join("testdata", "golden", c.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
			}
		})
	}
}

func goldenText(r response) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "status: %d\n", r.status)
	for _, h := range []string{"Content-Type", "X-Accel-Buffering", "Connection", "Retry-After", "Server"} {
		if v := r.header.Get(h); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", h, v)
		}
	}
	if r.readErr != nil {
		// Only the last part of the error: the rest names a random port.
		msg := r.readErr.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		fmt.Fprintf(&b, "read error: %s\n", msg)
	}
	b.WriteString("\n")
	b.Write(r.body)
	return b.Bytes()
}

func TestGoldenFilesAreAllUsed(t *testing.T) {
	names := map[string]bool{}
	for _, c := range goldenCases {
		names[c.name+".txt"] = true
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !names[e.Name()] {
			t.Errorf("testdata/golden/%s belongs to no case", e.Name())
		}
	}
}

func TestHTTPErrorHeaders(t *testing.T) {
	s := startT(t, Script{Replies: []Reply{Steps(HTTPError(APIError{Status: 503, Message: "Loading model"}))}})
	got := postChat(t, s, streamReq)
	if got.status != http.StatusServiceUnavailable {
		t.Fatalf("status %d", got.status)
	}
	if v, ok := got.header["Access-Control-Allow-Origin"]; !ok || len(v) != 1 || v[0] != "" {
		t.Errorf("Access-Control-Allow-Origin = %q, want one empty value", v)
	}
	want := `{"error":{"message":"Loading model","type":"unavailable_error","code":503}}`
	if string(got.body) != want {
		t.Errorf("body %s, want %s", got.body, want)
	}
}
