package google_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/testkit/llmserver"
)

func TestStreamsText(t *testing.T) {
	srv, c := fake(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("Hel"), llmserver.Text("lo")),
	}}, false)
	req := ask("hi")
	req.Messages = append([]llm.Message{{Role: llm.RoleSystem, Content: "Be brief."}}, req.Messages...)
	req.MaxTokens = 100
	chunks, resp, err := collect(t, c, req)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Chunk{{Kind: llm.ChunkText, Text: "Hel"}, {Kind: llm.ChunkText, Text: "lo"}}
	if !reflect.DeepEqual(chunks, want) {
		t.Errorf("chunks %+v, want %+v", chunks, want)
	}
	if resp.Message.Content != "Hello" || resp.FinishReason != llm.FinishStop || resp.Message.Continuation != nil {
		t.Errorf("response %+v", resp)
	}
	if resp.Model != testModel || resp.ID == "" {
		t.Errorf("model %q id %q", resp.Model, resp.ID)
	}
	rec, body := sent(t, srv, 0)
	if rec.Path != "/v1beta/models/"+testModel+":streamGenerateContent" || rec.RawQuery != "alt=sse" {
		t.Errorf("sent to %s?%s", rec.Path, rec.RawQuery)
	}
	if rec.Header.Get("X-Goog-Api-Key") != testKey {
		t.Errorf("api key header %q", rec.Header.Get("X-Goog-Api-Key"))
	}
	if len(body.Contents) != 1 || body.Contents[0].Role != "user" || *body.Contents[0].Parts[0].Text != "hi" {
		t.Errorf("contents %+v", body.Contents)
	}
	if body.SystemInstruction == nil || *body.SystemInstruction.Parts[0].Text != "Be brief." {
		t.Errorf("system instruction %+v", body.SystemInstruction)
	}
	if body.GenerationConfig.MaxOutputTokens != 100 || body.GenerationConfig.ThinkingConfig != nil {
		t.Errorf("generation config %+v", body.GenerationConfig)
	}
}

func TestCompletesWithoutStreaming(t *testing.T) {
	srv, c := fake(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Thinking("short"), llmserver.Text("Hel"), llmserver.Text("lo")),
	}}, true)
	req := ask("hi")
	req.Stream = false
	chunks, resp, err := collect(t, c, req)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Chunk{{Kind: llm.ChunkThinking, Text: "short"}, {Kind: llm.ChunkText, Text: "Hello"}}
	if !reflect.DeepEqual(chunks, want) {
		t.Errorf("chunks %+v, want %+v", chunks, want)
	}
	if resp.Message.Content != "Hello" || resp.FinishReason != llm.FinishStop || resp.Message.Continuation == nil {
		t.Errorf("response %+v", resp)
	}
	if rec, _ := sent(t, srv, 0); rec.Path != "/v1beta/models/"+testModel+":generateContent" {
		t.Errorf("sent to %s", rec.Path)
	}
}

func TestThinkingSignatureGoesBackOnItsPart(t *testing.T) {
	srv, c := fake(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Thinking("Let me "), llmserver.Thinking("think."), llmserver.Text("Hi")),
		llmserver.Steps(llmserver.Text("again")),
	}}, true)
	req := ask("hi")
	req.Thinking = llm.ThinkingHigh
	chunks, resp, err := collect(t, c, req)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Chunk{{Kind: llm.ChunkThinking, Text: "Let me "}, {Kind: llm.ChunkThinking, Text: "think."}, {Kind: llm.ChunkText, Text: "Hi"}}
	if !reflect.DeepEqual(chunks, want) {
		t.Errorf("chunks %+v, want %+v", chunks, want)
	}
	if resp.Message.Thinking != "Let me think." || resp.Message.Continuation.For("google") == nil {
		t.Fatalf("message %+v", resp.Message)
	}
	_, first := sent(t, srv, 0)
	tc := first.GenerationConfig.ThinkingConfig
	if tc == nil || !tc.IncludeThoughts || tc.ThinkingBudget != 16384 {
		t.Errorf("thinking config %+v", tc)
	}

	req.Messages = append(req.Messages, resp.Message, llm.Message{Role: llm.RoleUser, Content: "and?"})
	if _, _, err := collect(t, c, req); err != nil {
		t.Fatal(err)
	}
	_, second := sent(t, srv, 1)
	if len(second.Contents) != 3 {
		t.Fatalf("contents %+v", second.Contents)
	}
	model := second.Contents[1]
	if model.Role != "model" || len(model.Parts) != 2 {
		t.Fatalf("model turn %+v", model)
	}
	if !model.Parts[0].Thought || *model.Parts[0].Text != "Let me think." {
		t.Errorf("thought part %+v", model.Parts[0])
	}
	// The fake signs a thinking reply's last (empty) text part; the
	// signature must come back on the text part.
	if sig := llmserver.GeminiThoughtSignature(0); *model.Parts[1].Text != "Hi" || model.Parts[1].ThoughtSignature != sig {
		t.Errorf("text part %+v, want the signature %q", model.Parts[1], sig)
	}
}

func TestToolCall(t *testing.T) {
	srv, c := fake(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Thinking("I need the file."), llmserver.ToolCall("", "read_file", `{"path":"go.mod"}`)),
		llmserver.Steps(llmserver.Text("It is a Go module.")),
	}}, true)
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)
	req := ask("what is it?")
	req.Thinking = llm.ThinkingLow
	req.Tools = []llm.ToolDef{{Name: "read_file", Description: "Read a file.", Parameters: schema}}
	chunks, resp, err := collect(t, c, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != llm.FinishToolCalls || len(resp.Message.ToolCalls) != 1 || resp.ID == "" {
		t.Fatalf("response %+v", resp)
	}
	// Gemini sent no id: the call's is made of the response's, so the
	// next turn's first call does not get the same one.
	callID := "call_" + resp.ID + "_0"
	wantCall := llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: llm.ToolCallDelta{Index: 0, ID: callID, Name: "read_file", ArgumentsDelta: `{"path":"go.mod"}`}}
	if len(chunks) != 2 || !reflect.DeepEqual(chunks[1], wantCall) {
		t.Errorf("chunks %+v, want the thought then %+v", chunks, wantCall)
	}
	_, first := sent(t, srv, 0)
	decl := first.Tools[0].FunctionDeclarations[0]
	if decl.Name != "read_file" || decl.Description != "Read a file." || !jsonEqual(decl.ParametersJSONSchema, schema) {
		t.Errorf("declaration %+v", decl)
	}

	req.Messages = append(req.Messages, resp.Message, llm.Message{Role: llm.RoleTool, ToolCallID: callID, Content: "module x"})
	_, resp, err = collect(t, c, req)
	if err != nil || resp.Message.Content != "It is a Go module." {
		t.Fatalf("second answer %+v, %v", resp, err)
	}
	_, second := sent(t, srv, 1)
	model, result := second.Contents[1], second.Contents[2]
	call := model.Parts[len(model.Parts)-1]
	if call.FunctionCall == nil || call.FunctionCall.Name != "read_file" || call.FunctionCall.ID != "" ||
		call.FunctionCall.Args["path"] != "go.mod" || call.ThoughtSignature != llmserver.GeminiThoughtSignature(0) {
		t.Errorf("call part %+v %+v", call, call.FunctionCall)
	}
	fr := result.Parts[0].FunctionResponse
	if result.Role != "user" || fr == nil || fr.Name != "read_file" || fr.ID != "" || fr.Response["output"] != "module x" {
		t.Errorf("result %+v", result)
	}
}

func TestParallelCallsKeepGeminisIDs(t *testing.T) {
	srv, c := fake(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(
			llmserver.ToolCall("fc-a", "read_file", `{"path":"a"}`),
			llmserver.ToolCall("fc-b", "read_file", `{"path":"b"}`),
		),
		llmserver.Steps(llmserver.Text("done")),
	}}, false)
	_, resp, err := collect(t, c, ask("read a and b"))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{{ID: "fc-a", Name: "read_file", Arguments: `{"path":"a"}`}, {ID: "fc-b", Name: "read_file", Arguments: `{"path":"b"}`}}
	if !reflect.DeepEqual(resp.Message.ToolCalls, want) || resp.FinishReason != llm.FinishToolCalls {
		t.Fatalf("calls %+v finish %s", resp.Message.ToolCalls, resp.FinishReason)
	}
	req := ask("read a and b")
	req.Messages = append(req.Messages, resp.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: "fc-a", Content: "A"},
		llm.Message{Role: llm.RoleTool, ToolCallID: "fc-b", Content: "B"})
	if _, _, err := collect(t, c, req); err != nil {
		t.Fatal(err)
	}
	_, second := sent(t, srv, 1)
	if len(second.Contents) != 3 {
		t.Fatalf("contents %+v: the two results should be one user turn", second.Contents)
	}
	model, results := second.Contents[1], second.Contents[2]
	if len(model.Parts) != 2 || model.Parts[0].FunctionCall.ID != "fc-a" || model.Parts[1].FunctionCall.ID != "fc-b" {
		t.Errorf("model turn %+v", model)
	}
	if len(results.Parts) != 2 {
		t.Fatalf("results %+v", results)
	}
	for i, id := range []string{"fc-a", "fc-b"} {
		fr := results.Parts[i].FunctionResponse
		if fr == nil || fr.ID != id || fr.Name != "read_file" || fr.Response["output"] != string(rune('A'+i)) {
			t.Errorf("result %d %+v", i, fr)
		}
	}
}

func TestMidStreamErrorIsRetryable(t *testing.T) {
	_, c := fake(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("par"), llmserver.StreamError(llmserver.APIError{Status: 500, Message: "boom"})),
		llmserver.Steps(llmserver.Text("par"), llmserver.Disconnect()),
		llmserver.Steps(llmserver.Disconnect()),
	}}, false)
	chunks, _, err := collect(t, c, ask("hi"))
	e := asError(t, err)
	if e.Status != 500 || e.Type != "INTERNAL" || e.Message != "boom" || !e.Retryable || len(chunks) != 1 {
		t.Errorf("error %+v after %d chunks", e, len(chunks))
	}
	_, _, err = collect(t, c, ask("hi"))
	if e := asError(t, err); !errors.Is(err, llm.ErrStreamCut) || !e.Retryable || e.Type != llm.TypeStreamCut {
		t.Errorf("cut stream: %v", err)
	}
	_, _, err = collect(t, c, ask("hi"))
	if e := asError(t, err); errors.Is(err, llm.ErrStreamCut) || !e.Retryable || e.Type != llm.TypeConnection {
		t.Errorf("cut before the answer: %v", err)
	}
}

func TestOverloadAndRateLimitAreRetryable(t *testing.T) {
	retryInfo := json.RawMessage(`{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}`)
	_, c := fake(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 429, Message: "Resource has been exhausted (e.g. check quota).", Header: map[string]string{"Retry-After": "7"}})),
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 429, Message: "You exceeded your current quota.", Extra: retryInfo})),
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 503, Message: "The model is overloaded. Please try again later."})),
	}}, false)
	for _, want := range []struct {
		status int
		typ    string
		after  time.Duration
	}{{429, "RESOURCE_EXHAUSTED", 7 * time.Second}, {429, "RESOURCE_EXHAUSTED", 37 * time.Second}, {503, "UNAVAILABLE", 0}} {
		_, _, err := collect(t, c, ask("hi"))
		e := asError(t, err)
		if e.Status != want.status || e.Type != want.typ || !e.Retryable || e.RetryAfter != want.after {
			t.Errorf("error %+v, want status %d %s retryable after %s", e, want.status, want.typ, want.after)
		}
	}
}

func TestBadRequestIsNotRetryable(t *testing.T) {
	_, c := fake(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 400, Message: "Invalid JSON payload received. Unknown name \"foo\"."})),
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 400, Message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."})),
	}}, false)
	_, _, err := collect(t, c, ask("hi"))
	if e := asError(t, err); e.Status != 400 || e.Type != "INVALID_ARGUMENT" || e.Retryable || e.ContextOverflow {
		t.Errorf("error %+v", e)
	}
	_, _, err = collect(t, c, ask("hi"))
	if e := asError(t, err); e.Retryable || !e.ContextOverflow {
		t.Errorf("overflow %+v", e)
	}
}

func TestBadKeyIsUnauthorized(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{APIKey: "right", Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("hi"))}})
	c, err := googleNew(srv.URL(), "wrong")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = collect(t, c, ask("hi"))
	if e := asError(t, err); e.Status != 401 || e.Retryable {
		t.Errorf("error %+v", e)
	}
	c, err = googleNew(srv.URL()+"/v1beta", "right")
	if err != nil {
		t.Fatal(err)
	}
	if _, resp, err := collect(t, c, ask("hi")); err != nil || resp.Message.Content != "hi" {
		t.Errorf("right key, versioned base url: %+v %v", resp, err)
	}
}

func TestCancelMidStream(t *testing.T) {
	srv, c := fake(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("a"), llmserver.Delay(time.Minute), llmserver.Text("b")),
	}}, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []llm.Chunk
	_, err := c.Stream(ctx, ask("hi"), func(ch llm.Chunk) error {
		got = append(got, ch)
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || len(got) != 1 {
		t.Fatalf("err %v after %d chunks", err, len(got))
	}
	done, err := srv.WaitDone(context.Background(), 0)
	if err != nil || done.Outcome != llmserver.OutcomeCanceled {
		t.Errorf("the fake's outcome %q, %v", done.Outcome, err)
	}
}

func TestUsageCountsThoughtsAsCompletion(t *testing.T) {
	_, c := fake(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("ok"), llmserver.ReportUsage(llmserver.Usage{PromptTokens: 100, CompletionTokens: 30, ReasoningTokens: 12, CachedTokens: 40})),
	}}, false)
	chunks, resp, err := collect(t, c, ask("hi"))
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{PromptTokens: 100, CompletionTokens: 30, TotalTokens: 130, CachedTokens: 40}
	if resp.Usage == nil || *resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	var usages int
	for _, ch := range chunks {
		if ch.Kind == llm.ChunkUsage {
			usages++
		}
	}
	if usages != 1 {
		t.Errorf("%d usage chunks, want 1", usages)
	}
}

func TestAnotherProvidersHistoryIsTranslated(t *testing.T) {
	srv, c := fake(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("ok"))}}, true)
	req := ask("list files")
	req.Messages = append(req.Messages,
		llm.Message{
			Role:         llm.RoleAssistant,
			Thinking:     "Claude's reasoning",
			Content:      "Listing.",
			ToolCalls:    []llm.ToolCall{{ID: "toolu_01", Name: "run", Arguments: `{"cmd":"ls"}`}},
			Continuation: &llm.Continuation{Provider: "anthropic", Data: json.RawMessage(`{"blocks":[{"type":"thinking","signature":"c2ln"}]}`)},
		},
		llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_01", Content: "go.mod"},
		llm.Message{Role: llm.RoleUser, Content: "thanks", Images: []llm.Image{{MIMEType: "image/png", Data: "iVBORw0K"}}},
	)
	if _, _, err := collect(t, c, req); err != nil {
		t.Fatal(err)
	}
	_, body := sent(t, srv, 0)
	if len(body.Contents) != 3 {
		t.Fatalf("contents %+v: want user, model, then the result and the next message as one user turn", body.Contents)
	}
	model := body.Contents[1]
	if len(model.Parts) != 2 || *model.Parts[0].Text != "Listing." || model.Parts[0].Thought || model.Parts[0].ThoughtSignature != "" {
		t.Errorf("model turn %+v: another provider's thinking and signatures must not reach Gemini", model)
	}
	call := model.Parts[1].FunctionCall
	if call == nil || call.ID != "" || call.Name != "run" || call.Args["cmd"] != "ls" {
		t.Errorf("call %+v: a foreign id must not reach Gemini", call)
	}
	user := body.Contents[2]
	if len(user.Parts) != 3 {
		t.Fatalf("user turn %+v", user)
	}
	if fr := user.Parts[0].FunctionResponse; fr == nil || fr.ID != "" || fr.Name != "run" || fr.Response["output"] != "go.mod" {
		t.Errorf("result %+v", fr)
	}
	if img := user.Parts[2].InlineData; img == nil || img.MIMEType != "image/png" || img.Data != "iVBORw0K" {
		t.Errorf("image %+v", img)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func TestFinishReasons(t *testing.T) {
	_, c := fake(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("cut"), llmserver.Finish("length")),
		llmserver.Steps(llmserver.Text("no"), llmserver.Finish("content_filter")),
	}}, false)
	for _, want := range []llm.FinishReason{llm.FinishLength, "SAFETY"} {
		_, resp, err := collect(t, c, ask("hi"))
		if err != nil || resp.FinishReason != want {
			t.Errorf("finish %+v, %v; want %s", resp, err, want)
		}
	}
}

// A prompt Gemini refuses gets promptFeedback and no candidate; that is a
// finished answer, not a cut stream to retry. The fake has no script step
// for it, so a plain server sends the documented frame.
func TestBlockedPromptFinishes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},"usageMetadata": {"promptTokenCount": 9,"totalTokenCount": 9},"modelVersion": "gemini-2.5-flash","responseId": "x"}`+"\r\n\r\n")
	}))
	defer srv.Close()
	c, err := googleNew(srv.URL, testKey)
	if err != nil {
		t.Fatal(err)
	}
	_, resp, err := collect(t, c, ask("hi"))
	if err != nil || resp.FinishReason != "PROHIBITED_CONTENT" || resp.Usage == nil || resp.Usage.PromptTokens != 9 {
		t.Errorf("response %+v, %v", resp, err)
	}
}
