package openairesponses_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/llm/openairesponses"
	"github.com/troupehq/troupe/testkit/llmserver"
)

func newClient(t *testing.T, srv *llmserver.Server, thinking bool) *openairesponses.Client {
	t.Helper()
	c, err := openairesponses.New(openairesponses.Config{
		BaseURL: srv.URL() + "/v1", APIKey: "sk-test", SupportsThinking: thinking,
		Headers: map[string]string{"OpenAI-Organization": "org-test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func collect(chunks *[]llm.Chunk) func(llm.Chunk) error {
	return func(c llm.Chunk) error {
		*chunks = append(*chunks, c)
		return nil
	}
}

func llmError(t *testing.T, err error) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *llm.Error, got %T: %v", err, err)
	}
	return e
}

// input is the recorded request's input items.
func input(t *testing.T, r llmserver.Request) []map[string]any {
	t.Helper()
	var body struct {
		Input []map[string]any `json:"input"`
	}
	if err := r.Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Input
}

func user(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }

func TestText(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.Text("Hello"), llmserver.Text(", world"),
	)}})
	var chunks []llm.Chunk
	resp, err := newClient(t, srv, false).Stream(ctxT(t), llm.Request{
		Model: "gpt-4.1", Stream: true, MaxTokens: 100, SessionID: "sess-1",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Be brief."},
			{Role: llm.RoleUser, Content: "Look:", Images: []llm.Image{{MIMEType: "image/png", Data: "iVBORw0KGgo="}}},
		},
		Headers: map[string]string{"X-Trace": "t1"},
	}, collect(&chunks))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Chunk{{Kind: llm.ChunkText, Text: "Hello"}, {Kind: llm.ChunkText, Text: ", world"}}
	if !reflect.DeepEqual(chunks, want) {
		t.Errorf("chunks %+v", chunks)
	}
	if resp.Message.Content != "Hello, world" || resp.FinishReason != llm.FinishStop || resp.Model != "gpt-4.1" ||
		!strings.HasPrefix(resp.ID, "resp_") || resp.Message.Continuation != nil || resp.Usage != nil {
		t.Errorf("response %+v", resp)
	}
	reqs := srv.ResponsesRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer sk-test" ||
		r.Header.Get("OpenAI-Organization") != "org-test" || r.Header.Get("X-Trace") != "t1" {
		t.Errorf("request %s %v", r.Path, r.Header)
	}
	j := r.JSON
	if j["stream"] != true || j["store"] != false || j["model"] != "gpt-4.1" || j["instructions"] != "Be brief." ||
		j["max_output_tokens"] != 100.0 || j["prompt_cache_key"] != "sess-1" || j["include"] != nil || j["reasoning"] != nil {
		t.Errorf("body %s", r.Body)
	}
	in := input(t, r)
	parts, _ := in[0]["content"].([]any)
	if len(in) != 1 || in[0]["role"] != "user" || len(parts) != 2 {
		t.Fatalf("input %v", in)
	}
	img, _ := parts[1].(map[string]any)
	if img["type"] != "input_image" || img["image_url"] != "data:image/png;base64,iVBORw0KGgo=" {
		t.Errorf("image part %v", img)
	}
}

func TestReasoningIsSentBackNextTurn(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Thinking("Plan"), llmserver.Thinking(" it."), llmserver.Text("Done.")),
		llmserver.Steps(llmserver.Text("ok")),
	}})
	c := newClient(t, srv, true)
	msgs := []llm.Message{user("do it")}
	var chunks []llm.Chunk
	first, err := c.Stream(ctxT(t), llm.Request{Model: "gpt-5", Stream: true, Thinking: llm.ThinkingMedium, Messages: msgs}, collect(&chunks))
	if err != nil {
		t.Fatal(err)
	}
	if first.Message.Thinking != "Plan it." || first.Message.Content != "Done." {
		t.Errorf("message %+v", first.Message)
	}
	if len(chunks) != 3 || chunks[0].Kind != llm.ChunkThinking || chunks[0].Text != "Plan" {
		t.Errorf("chunks %+v", chunks)
	}
	cont := first.Message.Continuation
	if cont == nil || cont.Provider != "openai-responses" || cont.For("openai-responses") == nil {
		t.Fatalf("continuation %+v", cont)
	}
	// The continuation goes through the session log as JSON and back.
	var back llm.Continuation
	if err := json.Unmarshal(mustJSON(t, cont), &back); err != nil {
		t.Fatal(err)
	}
	first.Message.Continuation = &back
	msgs = append(msgs, first.Message, user("again"))
	if _, err := c.Stream(ctxT(t), llm.Request{Model: "gpt-5", Stream: true, Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.ResponsesRequests()
	j := reqs[0].JSON
	if !reflect.DeepEqual(j["include"], []any{"reasoning.encrypted_content"}) ||
		!reflect.DeepEqual(j["reasoning"], map[string]any{"effort": "medium", "summary": "auto"}) {
		t.Errorf("first request %s", reqs[0].Body)
	}
	in := input(t, reqs[1])
	if len(in) != 4 {
		t.Fatalf("input %v", in)
	}
	rs := in[1]
	enc, _ := rs["encrypted_content"].(string)
	summary, _ := rs["summary"].([]any)
	if rs["type"] != "reasoning" || rs["id"] != nil || !strings.HasPrefix(enc, "gAAAAA") || len(summary) != 1 ||
		summary[0].(map[string]any)["text"] != "Plan it." {
		t.Errorf("reasoning item %v", rs)
	}
	if in[2]["role"] != "assistant" || in[2]["content"] != "Done." || in[3]["content"] != "again" {
		t.Errorf("input after the reasoning %v", in[2:])
	}
	if strings.Contains(string(reqs[1].Body), `"reasoning_content"`) {
		t.Errorf("plain thinking sent: %s", reqs[1].Body)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestToolCallAndItsResult(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCallChunks("call_1", "read_file", `{"path":`, `"go.mod"}`)),
		llmserver.Steps(llmserver.Text("It is a Go module.")),
	}})
	c := newClient(t, srv, false)
	var chunks []llm.Chunk
	first, err := c.Stream(ctxT(t), llm.Request{Model: "gpt-4.1", Stream: true, Messages: []llm.Message{user("read")},
		Tools: []llm.ToolDef{{Name: "read_file", Description: "Reads a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}, {Name: "now"}},
	}, collect(&chunks))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Chunk{
		{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: 0, ID: "call_1", Name: "read_file"}},
		{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: 0, ArgumentsDelta: `{"path":`}},
		{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: 0, ArgumentsDelta: `"go.mod"}`}},
	}
	if !reflect.DeepEqual(chunks, want) {
		t.Errorf("chunks %+v", chunks)
	}
	if first.FinishReason != llm.FinishToolCalls ||
		!reflect.DeepEqual(first.Message.ToolCalls, []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"go.mod"}`}}) {
		t.Errorf("response %+v", first)
	}
	msgs := []llm.Message{user("read"), first.Message, {Role: llm.RoleTool, ToolCallID: "call_1", Content: "module x"}}
	second, err := c.Stream(ctxT(t), llm.Request{Model: "gpt-4.1", Stream: true, Messages: msgs}, nil)
	if err != nil || second.Message.Content != "It is a Go module." {
		t.Fatalf("second: %v %+v", err, second)
	}
	reqs := srv.ResponsesRequests()
	var tools []map[string]any
	raw, _ := json.Marshal(reqs[0].JSON["tools"])
	_ = json.Unmarshal(raw, &tools)
	if len(tools) != 2 || tools[0]["type"] != "function" || tools[0]["name"] != "read_file" || tools[0]["strict"] != false ||
		tools[0]["description"] != "Reads a file." || tools[1]["parameters"] == nil {
		t.Errorf("tools %v", tools)
	}
	in := input(t, reqs[1])
	wantIn := []map[string]any{
		{"role": "user", "content": "read"},
		{"type": "function_call", "call_id": "call_1", "name": "read_file", "arguments": `{"path":"go.mod"}`},
		{"type": "function_call_output", "call_id": "call_1", "output": "module x"},
	}
	if !reflect.DeepEqual(in, wantIn) {
		t.Errorf("input\n got %v\nwant %v", in, wantIn)
	}
}

func TestParallelToolCallsKeepTheirOrderAndReasoning(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(
			llmserver.Thinking("Both files."),
			llmserver.ToolCall("call_a", "read_file", `{"path":"a"}`),
			llmserver.ToolCall("", "read_file", `{"path":"b"}`),
		),
		llmserver.Steps(llmserver.Text("Read both.")),
	}})
	c := newClient(t, srv, true)
	var chunks []llm.Chunk
	first, err := c.Stream(ctxT(t), llm.Request{Model: "gpt-5", Stream: true, Messages: []llm.Message{user("read a and b")}}, collect(&chunks))
	if err != nil {
		t.Fatal(err)
	}
	var starts []llm.ToolCallDelta
	for _, ch := range chunks {
		if ch.Kind == llm.ChunkToolCall && ch.ToolCall.Name != "" {
			starts = append(starts, ch.ToolCall)
		}
	}
	if len(starts) != 2 || starts[0].Index != 0 || starts[0].ID != "call_a" || starts[1].Index != 1 || starts[1].ID != "call_1" {
		t.Errorf("tool call starts %+v", starts)
	}
	wantCalls := []llm.ToolCall{{ID: "call_a", Name: "read_file", Arguments: `{"path":"a"}`}, {ID: "call_1", Name: "read_file", Arguments: `{"path":"b"}`}}
	if !reflect.DeepEqual(first.Message.ToolCalls, wantCalls) || first.Message.Continuation == nil {
		t.Fatalf("message %+v", first.Message)
	}
	msgs := []llm.Message{user("read a and b"), first.Message,
		{Role: llm.RoleTool, ToolCallID: "call_a", Content: "A"}, {Role: llm.RoleTool, ToolCallID: "call_1", Content: "B"}}
	if _, err := c.Stream(ctxT(t), llm.Request{Model: "gpt-5", Stream: true, Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, it := range input(t, srv.ResponsesRequests()[1]) {
		k, _ := it["type"].(string)
		if id, ok := it["call_id"].(string); ok {
			k += ":" + id
		}
		kinds = append(kinds, k)
	}
	want := []string{"", "reasoning", "function_call:call_a", "function_call:call_1", "function_call_output:call_a", "function_call_output:call_1"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("input items %v, want %v", kinds, want)
	}
}

func TestUsage(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.Text("hi"), llmserver.ReportUsage(llmserver.Usage{PromptTokens: 100, CompletionTokens: 20, CachedTokens: 64}),
	)}})
	var chunks []llm.Chunk
	resp, err := newClient(t, srv, false).Stream(ctxT(t), llm.Request{Model: "gpt-4.1", Stream: true, Messages: []llm.Message{user("hi")}}, collect(&chunks))
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120, CachedTokens: 64}
	if resp.Usage == nil || *resp.Usage != want {
		t.Errorf("usage %+v", resp.Usage)
	}
	if last := chunks[len(chunks)-1]; last.Kind != llm.ChunkUsage || last.Usage != want {
		t.Errorf("last chunk %+v", last)
	}
}

func TestLengthFinishIsIncomplete(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("cut"), llmserver.Finish("length"))}})
	resp, err := newClient(t, srv, false).Stream(ctxT(t), llm.Request{Model: "gpt-4.1", Stream: true, Messages: []llm.Message{user("hi")}}, nil)
	if err != nil || resp.FinishReason != llm.FinishLength || resp.Message.Content != "cut" {
		t.Errorf("%v %+v", err, resp)
	}
}

func TestMidStreamErrorIsRetryable(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("partial"), llmserver.StreamError(llmserver.APIError{Message: "The model failed to generate a response."})),
		llmserver.Steps(llmserver.StreamError(llmserver.APIError{Status: 400, Type: "context_length_exceeded", Message: "Your input exceeds the context window."})),
	}})
	c := newClient(t, srv, false)
	var chunks []llm.Chunk
	_, err := c.Stream(ctxT(t), llm.Request{Model: "gpt-4.1", Stream: true, Messages: []llm.Message{user("hi")}}, collect(&chunks))
	e := llmError(t, err)
	if !e.Retryable || e.ContextOverflow || e.Type != "server_error" || e.Message != "The model failed to generate a response." {
		t.Errorf("error %+v", e)
	}
	if len(chunks) != 1 || chunks[0].Text != "partial" {
		t.Errorf("chunks %+v", chunks)
	}
	_, err = c.Stream(ctxT(t), llm.Request{Model: "gpt-4.1", Stream: true, Messages: []llm.Message{user("hi")}}, nil)
	if e := llmError(t, err); e.Retryable || !e.ContextOverflow {
		t.Errorf("overflow error %+v", e)
	}
}

func TestRateLimitIsRetryableAfterItsWait(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.HTTPError(llmserver.APIError{
		Status: 429, Message: "Rate limit reached for requests", Header: map[string]string{"Retry-After": "2"},
	}))}})
	_, err := newClient(t, srv, false).Stream(ctxT(t), llm.Request{Model: "gpt-4.1", Stream: true, Messages: []llm.Message{user("hi")}}, nil)
	e := llmError(t, err)
	if e.Status != 429 || !e.Retryable || e.RetryAfter != 2*time.Second || e.Type != "rate_limit_exceeded" || e.Message != "Rate limit reached for requests" {
		t.Errorf("error %+v", e)
	}
	if n := len(srv.ResponsesRequests()); n != 1 {
		t.Errorf("%d requests: the SDK retried", n)
	}
}

func TestBadRequestIsNotRetryable(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 400, Message: "Invalid 'input[0].content': string too long."})),
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 400, Message: "Input too long.",
			Extra: json.RawMessage(`{"code":"context_length_exceeded"}`)})),
	}})
	c := newClient(t, srv, false)
	_, err := c.Stream(ctxT(t), llm.Request{Model: "gpt-4.1", Stream: true, Messages: []llm.Message{user("hi")}}, nil)
	if e := llmError(t, err); e.Status != 400 || e.Retryable || e.ContextOverflow || e.Type != "invalid_request_error" {
		t.Errorf("error %+v", e)
	}
	_, err = c.Stream(ctxT(t), llm.Request{Model: "gpt-4.1", Stream: true, Messages: []llm.Message{user("hi")}}, nil)
	if e := llmError(t, err); e.Retryable || !e.ContextOverflow || e.Type != "context_length_exceeded" {
		t.Errorf("overflow error %+v", e)
	}
}

func TestCutStream(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("partial"), llmserver.Disconnect())}})
	_, err := newClient(t, srv, false).Stream(ctxT(t), llm.Request{Model: "gpt-4.1", Stream: true, Messages: []llm.Message{user("hi")}}, nil)
	if !errors.Is(err, llm.ErrStreamCut) || !llm.IsRetryable(err) {
		t.Errorf("error %v", err)
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.Text("first"), llmserver.Delay(time.Minute), llmserver.Text("never"),
	)}})
	ctx, cancel := context.WithCancel(ctxT(t))
	var chunks []llm.Chunk
	_, err := newClient(t, srv, false).Stream(ctx, llm.Request{Model: "gpt-4.1", Stream: true, Messages: []llm.Message{user("hi")}},
		func(c llm.Chunk) error {
			chunks = append(chunks, c)
			cancel()
			return nil
		})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if len(chunks) != 1 || chunks[0].Text != "first" {
		t.Errorf("chunks %+v", chunks)
	}
	done, err := srv.WaitDone(ctxT(t), 0)
	if err != nil || done.Outcome != llmserver.OutcomeCanceled {
		t.Errorf("server saw %q (%v), want canceled", done.Outcome, err)
	}
}

func TestWholeReplyWithoutStreaming(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.Text("a"), llmserver.Text("b"), llmserver.ToolCallChunks("call_1", "run", `{"x":`, `1}`),
	)}})
	var chunks []llm.Chunk
	resp, err := newClient(t, srv, false).Stream(ctxT(t), llm.Request{Model: "gpt-4.1", Messages: []llm.Message{user("hi")}}, collect(&chunks))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Chunk{
		{Kind: llm.ChunkText, Text: "ab"},
		{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: 0, ID: "call_1", Name: "run", ArgumentsDelta: `{"x":1}`}},
	}
	if !reflect.DeepEqual(chunks, want) || resp.Message.Content != "ab" {
		t.Errorf("chunks %+v, response %+v", chunks, resp)
	}
}

// TestHistoryFromOtherProviders checks a conversation switched from
// another provider: its continuation and thinking are dropped, tool-call
// ids are kept, and calls that came without one get ids their results
// share.
func TestHistoryFromOtherProviders(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("ok"))}})
	msgs := []llm.Message{
		user("list"),
		{Role: llm.RoleAssistant, Thinking: "secret anthropic thoughts", Content: "Listing.",
			ToolCalls:    []llm.ToolCall{{ID: "toolu_01", Name: "ls", Arguments: `{}`}},
			Continuation: &llm.Continuation{Provider: "anthropic", Data: json.RawMessage(`{"signature":"sig"}`)}},
		{Role: llm.RoleTool, ToolCallID: "toolu_01", Content: "a b"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "pwd"}},
			Continuation: &llm.Continuation{Provider: "google", Data: json.RawMessage(`{"thought_signature":"x"}`)}},
		{Role: llm.RoleTool, Content: "/tmp"},
		user("and now?"),
	}
	if _, err := newClient(t, srv, true).Stream(ctxT(t), llm.Request{Model: "gpt-5", Stream: true, Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.ResponsesRequests()[0]
	for _, leak := range []string{"secret", "signature", `"type":"reasoning"`, `"id":`} {
		if strings.Contains(string(r.Body), leak) {
			t.Errorf("request carries %s: %s", leak, r.Body)
		}
	}
	in := input(t, r)
	want := []map[string]any{
		{"role": "user", "content": "list"},
		{"role": "assistant", "content": "Listing."},
		{"type": "function_call", "call_id": "toolu_01", "name": "ls", "arguments": "{}"},
		{"type": "function_call_output", "call_id": "toolu_01", "output": "a b"},
		{"type": "function_call", "call_id": "call_0", "name": "pwd", "arguments": "{}"},
		{"type": "function_call_output", "call_id": "call_0", "output": "/tmp"},
		{"role": "user", "content": "and now?"},
	}
	if !reflect.DeepEqual(in, want) {
		t.Errorf("input\n got %v\nwant %v", in, want)
	}
}

// TestErrorEvent reads the error event some failures arrive as, in the
// reference's shape and nested.
func TestErrorEvent(t *testing.T) {
	for _, c := range []struct{ data, typ string }{
		{`{"type":"error","code":"rate_limit_exceeded","message":"Slow down.","param":null,"sequence_number":2}`, "rate_limit_exceeded"},
		{`{"type":"error","error":{"type":"server_error","code":"server_error","message":"Oops.","param":null},"sequence_number":2}`, "server_error"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"model\":\"m\",\"status\":\"in_progress\",\"output\":[]},\"sequence_number\":0}\n\n" +
				"event: error\ndata: " + c.data + "\n\n"))
		}))
		client, err := openairesponses.New(openairesponses.Config{BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.Stream(ctxT(t), llm.Request{Model: "m", Stream: true, Messages: []llm.Message{user("hi")}}, nil)
		srv.Close()
		if e := llmError(t, err); !e.Retryable || e.Type != c.typ || e.Message == "" {
			t.Errorf("%s: error %+v", c.data, e)
		}
	}
}

// TestReasoningThatEndedTheTurnIsNotSentBack: a reply cut at its length
// limit while reasoning leaves a reasoning item that led to nothing, which
// the API refuses as input.
func TestReasoningThatEndedTheTurnIsNotSentBack(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Thinking("Out of room"), llmserver.Finish("length")),
		llmserver.Steps(llmserver.Text("ok")),
	}})
	c := newClient(t, srv, true)
	first, err := c.Stream(ctxT(t), llm.Request{Model: "gpt-5", Stream: true, Messages: []llm.Message{user("go")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.FinishReason != llm.FinishLength || first.Message.Continuation == nil {
		t.Fatalf("first %+v", first)
	}
	msgs := []llm.Message{user("go"), first.Message, user("go on")}
	if _, err := c.Stream(ctxT(t), llm.Request{Model: "gpt-5", Stream: true, Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{{"role": "user", "content": "go"}, {"role": "user", "content": "go on"}}
	if in := input(t, srv.ResponsesRequests()[1]); !reflect.DeepEqual(in, want) {
		t.Errorf("input %v", in)
	}
}

func TestLongSessionIDIsHashedIntoTheCacheKey(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("ok"))}})
	long := strings.Repeat("client-chosen-id/", 10)
	if _, err := newClient(t, srv, false).Stream(ctxT(t), llm.Request{Model: "gpt-4.1", Stream: true, SessionID: long, Messages: []llm.Message{user("hi")}}, nil); err != nil {
		t.Fatal(err)
	}
	key, _ := srv.ResponsesRequests()[0].JSON["prompt_cache_key"].(string)
	if !strings.HasPrefix(key, "troupe-") || len(key) > 64 {
		t.Errorf("prompt_cache_key %q", key)
	}
}

// TestSparseServers reads streams of servers that leave events out: deltas
// for items never announced, or nothing but the final response. Each text
// and call must arrive once.
func TestSparseServers(t *testing.T) {
	const completed = `{"type":"response.completed","response":{"id":"resp_1","model":"m","status":"completed","output":[` +
		`{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Hello"}]},` +
		`{"type":"function_call","id":"fc_1","call_id":"call_9","name":"run","arguments":"{}"}]}}`
	for name, body := range map[string]string{
		"deltas without added": "data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"Hel\"}\n\n" +
			"data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"lo\"}\n\n" +
			"data: " + completed + "\n\n",
		"final response only":  "event: response.completed\ndata: " + completed + "\n\n",
		"done marker after it": "data: " + completed + "\n\ndata: [DONE]\n\n",
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(body))
		}))
		client, err := openairesponses.New(openairesponses.Config{BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Stream(ctxT(t), llm.Request{Model: "m", Stream: true, Messages: []llm.Message{user("hi")}}, nil)
		srv.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if resp.Message.Content != "Hello" || resp.FinishReason != llm.FinishToolCalls ||
			!reflect.DeepEqual(resp.Message.ToolCalls, []llm.ToolCall{{ID: "call_9", Name: "run", Arguments: "{}"}}) {
			t.Errorf("%s: %+v", name, resp.Message)
		}
	}
}

func TestDoneMarkerWithoutTerminalEventIsACut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"Hel\"}\n\ndata: [DONE]\n\n"))
	}))
	defer srv.Close()
	client, err := openairesponses.New(openairesponses.Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Stream(ctxT(t), llm.Request{Model: "m", Stream: true, Messages: []llm.Message{user("hi")}}, nil)
	if !errors.Is(err, llm.ErrStreamCut) {
		t.Errorf("error %v, want a cut stream", err)
	}
}
