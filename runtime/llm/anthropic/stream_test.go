package anthropic_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/testkit/llmserver"
)

func TestTextStreamsWithUsageAndCacheMarkers(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.Text("Hello"), llmserver.Text(", world"),
		llmserver.ReportUsage(llmserver.Usage{PromptTokens: 12, CompletionTokens: 3}),
	)}})
	c := firstParty(t, s, false)
	temp := 0.2
	resp, chunks := mustRun(t, c, llm.Request{
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "Be brief."}, user("Hi")},
		Tools: []llm.ToolDef{{Name: "read", Description: "Read a file",
			Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}},
		Temperature: &temp,
	})
	if got := texts(chunks, llm.ChunkText); !slices.Equal(got, []string{"Hello", ", world"}) {
		t.Errorf("text chunks %q", got)
	}
	if resp.Message.Content != "Hello, world" || resp.FinishReason != llm.FinishStop || resp.Message.Continuation != nil {
		t.Errorf("reply %+v", resp)
	}
	if u := resp.Usage; u == nil || *u != (llm.Usage{PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15}) {
		t.Errorf("usage %+v", resp.Usage)
	}
	if !strings.HasPrefix(resp.ID, "msg_") || resp.Model != model {
		t.Errorf("id %q model %q", resp.ID, resp.Model)
	}
	reqs := s.ChatRequests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/messages" || reqs[0].Header.Get("X-Api-Key") != "sk-ant-test" || reqs[0].Header.Get("Anthropic-Version") == "" {
		t.Fatalf("request %+v", reqs)
	}
	b := decode(t, reqs[0])
	if b.Model != model || !b.Stream || b.MaxTokens <= 0 || b.Temperature == nil || *b.Temperature != temp {
		t.Errorf("body %s", b.Raw)
	}
	if len(b.System) != 1 || b.System[0].Text != "Be brief." || b.System[0].CacheControl == nil || b.System[0].CacheControl.Type != "ephemeral" {
		t.Errorf("system %s", b.Raw)
	}
	if len(b.Tools) != 1 || b.Tools[0].CacheControl == nil || !strings.Contains(string(b.Tools[0].InputSchema), `"additionalProperties":false`) ||
		!strings.Contains(string(b.Tools[0].InputSchema), `"required":["path"]`) {
		t.Errorf("tools %s", b.Raw)
	}
	last := b.Messages[len(b.Messages)-1]
	if last.Role != "user" || last.Content[len(last.Content)-1].CacheControl == nil {
		t.Errorf("the last user message has no cache marker: %s", b.Raw)
	}
}

func TestThinkingSignatureGoesBackVerbatim(t *testing.T) {
	const thought = "The user greets me.\nI should answer \"kindly\" — in \u00e9l\u00e9gant words."
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Thinking("The user greets me.\n"), llmserver.Thinking(thought[len("The user greets me.\n"):]), llmserver.Text("Hello!")),
		llmserver.Steps(llmserver.Text("Again.")),
	}})
	c := firstParty(t, s, true)
	resp, chunks := mustRun(t, c, llm.Request{Messages: []llm.Message{user("Hi")}, Thinking: llm.ThinkingMedium})
	if got := strings.Join(texts(chunks, llm.ChunkThinking), ""); got != thought || resp.Message.Thinking != thought {
		t.Errorf("thinking chunks %q, message %q", got, resp.Message.Thinking)
	}
	if resp.Message.Continuation == nil || resp.Message.Continuation.Provider != "anthropic" {
		t.Fatalf("continuation %+v", resp.Message.Continuation)
	}
	first := requests(t, s)[0]
	if first.Thinking == nil || first.Thinking.Type != "enabled" || first.Thinking.BudgetTokens != 8192 || first.MaxTokens <= 8192 || first.Temperature != nil {
		t.Errorf("thinking config %s", first.Raw)
	}

	mustRun(t, c, llm.Request{Messages: []llm.Message{user("Hi"), resp.Message, user("Again")}, Thinking: llm.ThinkingMedium})
	second := requests(t, s)[1]
	asst := second.Messages[1]
	if asst.Role != "assistant" || len(asst.Content) != 2 {
		t.Fatalf("assistant turn %s", second.Raw)
	}
	th := asst.Content[0]
	if th.Type != "thinking" || th.Thinking != thought || th.Signature != llmserver.ThinkingSignature(thought) {
		t.Errorf("thinking block went back as %+v", th)
	}
	if asst.Content[1].Type != "text" || asst.Content[1].Text != "Hello!" {
		t.Errorf("text block %+v", asst.Content[1])
	}
}

func TestRedactedThinkingGoesBack(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.RedactedThinking("EmwKAhgBEgy3va3pzix/LafPsn4a"), llmserver.Thinking("visible"), llmserver.Text("Done.")),
		llmserver.Steps(llmserver.Text("ok")),
	}})
	c := firstParty(t, s, true)
	resp, _ := mustRun(t, c, llm.Request{Messages: []llm.Message{user("Hi")}, Thinking: llm.ThinkingLow})
	if resp.Message.Thinking != "visible" || resp.Message.Content != "Done." {
		t.Errorf("reply %+v", resp.Message)
	}
	mustRun(t, c, llm.Request{Messages: []llm.Message{user("Hi"), resp.Message, user("more")}, Thinking: llm.ThinkingLow})
	asst := requests(t, s)[1].Messages[1]
	want := []string{"redacted_thinking", "thinking", "text"}
	var got []string
	for _, b := range asst.Content {
		got = append(got, b.Type)
	}
	if !slices.Equal(got, want) || asst.Content[0].Data != "EmwKAhgBEgy3va3pzix/LafPsn4a" || asst.Content[1].Signature != llmserver.ThinkingSignature("visible") {
		t.Errorf("assistant turn %+v", asst.Content)
	}
}

func TestToolCallAndItsResult(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.Text("Let me look."), llmserver.ToolCallChunks("toolu_01A", "read", `{"path":`, `"a.go"}`)),
		llmserver.Steps(llmserver.Text("It is empty.")),
	}})
	c := firstParty(t, s, false)
	resp, chunks := mustRun(t, c, llm.Request{Messages: []llm.Message{user("Read a.go")}})
	if resp.FinishReason != llm.FinishToolCalls || len(resp.Message.ToolCalls) != 1 {
		t.Fatalf("reply %+v", resp)
	}
	if tc := resp.Message.ToolCalls[0]; tc != (llm.ToolCall{ID: "toolu_01A", Name: "read", Arguments: `{"path":"a.go"}`}) {
		t.Errorf("call %+v", tc)
	}
	var deltas []llm.ToolCallDelta
	for _, ch := range chunks {
		if ch.Kind == llm.ChunkToolCall {
			deltas = append(deltas, ch.ToolCall)
		}
	}
	if len(deltas) != 3 || deltas[0].ID != "toolu_01A" || deltas[0].Name != "read" || deltas[1].ArgumentsDelta != `{"path":` || deltas[1].ID != "" {
		t.Errorf("deltas %+v", deltas)
	}
	history := []llm.Message{user("Read a.go"), resp.Message, {Role: llm.RoleTool, ToolCallID: "toolu_01A", Content: ""}}
	mustRun(t, c, llm.Request{Messages: history})
	b := requests(t, s)[1]
	if len(b.Messages) != 3 {
		t.Fatalf("messages %s", b.Raw)
	}
	use := b.Messages[1].Content[1]
	if use.Type != "tool_use" || use.ID != "toolu_01A" || string(use.Input) != `{"path":"a.go"}` {
		t.Errorf("tool_use %+v", use)
	}
	res := b.Messages[2]
	if res.Role != "user" || res.Content[0].Type != "tool_result" || res.Content[0].ToolUseID != "toolu_01A" || len(res.Content[0].Content) != 0 ||
		res.Content[0].CacheControl == nil {
		t.Errorf("tool result %s", b.Raw)
	}
}

func TestParallelToolCallsAndMergedResults(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("", "read", `{"path":"a"}`), llmserver.ToolCall("", "read", `{"path":"b"}`)),
		llmserver.Steps(llmserver.Text("Both read.")),
	}})
	c := firstParty(t, s, false)
	resp, chunks := mustRun(t, c, llm.Request{Messages: []llm.Message{user("Read a and b")}})
	calls := resp.Message.ToolCalls
	if len(calls) != 2 || calls[0].Arguments != `{"path":"a"}` || calls[1].Arguments != `{"path":"b"}` || calls[0].ID == calls[1].ID {
		t.Fatalf("calls %+v", calls)
	}
	var firsts []int
	for _, ch := range chunks {
		if ch.Kind == llm.ChunkToolCall && ch.ToolCall.ID != "" {
			firsts = append(firsts, ch.ToolCall.Index)
		}
	}
	if !slices.Equal(firsts, []int{0, 1}) {
		t.Errorf("call indexes %v", firsts)
	}
	history := []llm.Message{user("Read a and b"), resp.Message,
		{Role: llm.RoleTool, ToolCallID: calls[0].ID, Content: "A"},
		{Role: llm.RoleTool, ToolCallID: calls[1].ID, Content: "B", Images: []llm.Image{{MIMEType: "image/png", Data: "iVBORw0KGgo="}}},
	}
	mustRun(t, c, llm.Request{Messages: history})
	b := requests(t, s)[1]
	if len(b.Messages) != 3 || len(b.Messages[2].Content) != 2 {
		t.Fatalf("the tool results are not one user message: %s", b.Raw)
	}
	r0, r1 := b.Messages[2].Content[0], b.Messages[2].Content[1]
	if r0.ToolUseID != calls[0].ID || r0.Content[0].Text != "A" || r1.ToolUseID != calls[1].ID {
		t.Errorf("results %+v %+v", r0, r1)
	}
	if len(r1.Content) != 2 || r1.Content[0].Type != "image" || r1.Content[0].Source.Data != "iVBORw0KGgo=" || r1.Content[1].Text != "B" {
		t.Errorf("image result %+v", r1.Content)
	}
}

func TestUserImages(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("A cat."))}})
	mustRun(t, firstParty(t, s, false), llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "What is this?", Images: []llm.Image{{MIMEType: "image/jpeg", Data: "/9j/4AAQ"}}},
	}})
	got := requests(t, s)[0].Messages[0].Content
	if len(got) != 2 || got[0].Type != "image" || got[0].Source.MediaType != "image/jpeg" || got[0].Source.Type != "base64" || got[1].Text != "What is this?" {
		t.Errorf("content %+v", got)
	}
}

func TestMidStreamErrorIsRetryable(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.Text("partial"), llmserver.StreamError(llmserver.APIError{Status: 529, Message: "Overloaded"}),
	)}})
	_, chunks, err := run(t, firstParty(t, s, false), llm.Request{Messages: []llm.Message{user("Hi")}})
	e := llmError(t, err)
	if !e.Retryable || e.Type != "overloaded_error" || e.Status != 529 || e.Message != "Overloaded" {
		t.Errorf("error %+v", e)
	}
	if got := texts(chunks, llm.ChunkText); !slices.Equal(got, []string{"partial"}) {
		t.Errorf("chunks before the error %q", got)
	}
}

func TestOverloadedAnswerCarriesRetryAfter(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.HTTPError(llmserver.APIError{Status: 529, Message: "Overloaded", Header: map[string]string{"Retry-After": "7"}}),
	)}})
	_, _, err := run(t, firstParty(t, s, false), llm.Request{Messages: []llm.Message{user("Hi")}})
	e := llmError(t, err)
	if !e.Retryable || e.Status != 529 || e.Type != "overloaded_error" || e.RetryAfter != 7*time.Second {
		t.Errorf("error %+v", e)
	}
	if n := len(s.ChatRequests()); n != 1 {
		t.Errorf("the SDK retried: %d requests", n)
	}
}

func TestRateLimitIsRetryable(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.HTTPError(llmserver.APIError{Status: 429, Header: map[string]string{"Retry-After": "2"}}),
	)}})
	_, _, err := run(t, firstParty(t, s, false), llm.Request{Messages: []llm.Message{user("Hi")}})
	if e := llmError(t, err); !e.Retryable || e.Type != "rate_limit_error" || e.RetryAfter != 2*time.Second {
		t.Errorf("error %+v", e)
	}
}

func TestRequestErrorsAreNotRetryable(t *testing.T) {
	cases := []struct {
		name     string
		err      llmserver.APIError
		overflow bool
	}{
		{"invalid", llmserver.APIError{Status: 400, Message: "messages.0.content: Field required"}, false},
		{"auth", llmserver.APIError{Status: 401, Message: "invalid x-api-key"}, false},
		{"permission", llmserver.APIError{Status: 403}, false},
		{"not found", llmserver.APIError{Status: 404, Message: "model: claude-nope"}, false},
		{"too long", llmserver.APIError{Status: 400, Message: "prompt is too long: 210000 tokens > 200000 maximum"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.HTTPError(tc.err))}})
			_, _, err := run(t, firstParty(t, s, false), llm.Request{Messages: []llm.Message{user("Hi")}})
			e := llmError(t, err)
			if e.Retryable || e.Status != tc.err.Status || e.ContextOverflow != tc.overflow {
				t.Errorf("error %+v", e)
			}
			if tc.err.Message != "" && e.Message != tc.err.Message {
				t.Errorf("message %q", e.Message)
			}
		})
	}
}

func TestCutStreamIsStreamCut(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("half"), llmserver.Disconnect())}})
	_, _, err := run(t, firstParty(t, s, false), llm.Request{Messages: []llm.Message{user("Hi")}})
	if e := llmError(t, err); !e.Retryable || !errors.Is(err, llm.ErrStreamCut) {
		t.Errorf("error %+v", e)
	}
}

func TestCancelMidStream(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.Text("first"), llmserver.Delay(time.Minute), llmserver.Text("never"),
	)}})
	c := firstParty(t, s, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	_, err := c.Stream(ctx, llm.Request{Model: model, Stream: true, Messages: []llm.Message{user("Hi")}}, func(ch llm.Chunk) error {
		if ch.Kind == llm.ChunkText {
			got = append(got, ch.Text)
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || !slices.Equal(got, []string{"first"}) {
		t.Errorf("err %v, chunks %q", err, got)
	}
	done, err := s.WaitDone(context.Background(), 0)
	if err != nil || done.Outcome != llmserver.OutcomeCanceled {
		t.Errorf("server saw %q (%v)", done.Outcome, err)
	}
}

func TestSinkErrorAborts(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("a"), llmserver.Text("b"))}})
	stop := errors.New("enough")
	_, err := firstParty(t, s, false).Stream(context.Background(), llm.Request{Model: model, Stream: true, Messages: []llm.Message{user("Hi")}},
		func(llm.Chunk) error { return stop })
	var le *llm.Error
	if !errors.Is(err, stop) || errors.As(err, &le) {
		t.Errorf("err %v", err)
	}
}

func TestCacheReadAndWriteUsage(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.Text("cached"),
		llmserver.ReportUsage(llmserver.Usage{PromptTokens: 1000, CachedTokens: 600, CacheWriteTokens: 300, CompletionTokens: 40}),
	)}})
	resp, chunks := mustRun(t, firstParty(t, s, false), llm.Request{Messages: []llm.Message{user("Hi")}})
	want := llm.Usage{PromptTokens: 1000, CompletionTokens: 40, TotalTokens: 1040, CachedTokens: 600, CacheWriteTokens: 300}
	if resp.Usage == nil || *resp.Usage != want {
		t.Errorf("usage %+v", resp.Usage)
	}
	if last := chunks[len(chunks)-1]; last.Kind != llm.ChunkUsage || last.Usage != want {
		t.Errorf("usage chunk %+v", last)
	}
}

func TestNotStreamingGivesTheWholeReplyAtTheEnd(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.Thinking("hmm"), llmserver.Text("a"), llmserver.Text("b"), llmserver.ToolCall("toolu_9", "ls", `{}`),
	)}})
	var chunks []llm.Chunk
	resp, err := firstParty(t, s, false).Stream(context.Background(), llm.Request{Model: model, Messages: []llm.Message{user("Hi")}},
		func(c llm.Chunk) error { chunks = append(chunks, c); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "ab" || len(chunks) != 4 || chunks[1].Text != "ab" || chunks[2].ToolCall.Name != "ls" {
		t.Errorf("chunks %+v", chunks)
	}
}

func TestForeignHistoryIsTranslated(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("ok"))}})
	c := firstParty(t, s, true)
	odd := "call.7/read:0"
	history := []llm.Message{
		{Role: llm.RoleSystem, Content: "sys"},
		user("Read it"),
		{Role: llm.RoleAssistant, Thinking: "foreign reasoning", Content: "Reading.",
			ToolCalls:    []llm.ToolCall{{ID: odd, Name: "read", Arguments: `{"path":"x"}`}, {ID: "fine_id-1", Name: "read", Arguments: `not json`}},
			Continuation: &llm.Continuation{Provider: "openai-responses", Data: []byte(`[{"type":"reasoning","id":"rs_1"}]`)}},
		{Role: llm.RoleTool, ToolCallID: odd, Content: "X"},
		{Role: llm.RoleTool, ToolCallID: "fine_id-1", Content: "bad arguments"},
	}
	mustRun(t, c, llm.Request{Messages: history, Thinking: llm.ThinkingHigh})
	b := requests(t, s)[0]
	if strings.Contains(string(b.Raw), "foreign reasoning") || strings.Contains(string(b.Raw), "rs_1") {
		t.Errorf("foreign reasoning was sent: %s", b.Raw)
	}
	if b.Thinking != nil {
		t.Errorf("thinking is on although the tool loop's assistant turn has no thinking block: %s", b.Raw)
	}
	asst := b.Messages[1].Content
	if len(asst) != 3 || asst[0].Type != "text" || asst[1].Type != "tool_use" || asst[2].Type != "tool_use" {
		t.Fatalf("assistant turn %s", b.Raw)
	}
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	results := b.Messages[2].Content
	if !valid.MatchString(asst[1].ID) || asst[1].ID != results[0].ToolUseID || asst[2].ID != "fine_id-1" || results[1].ToolUseID != "fine_id-1" {
		t.Errorf("ids: uses %q %q, results %q %q", asst[1].ID, asst[2].ID, results[0].ToolUseID, results[1].ToolUseID)
	}
	if string(asst[2].Input) != `{}` {
		t.Errorf("broken arguments went as %s", asst[2].Input)
	}

	// A continuation of the same model family on another platform is not
	// this API's either: its signature is not promised to verify here.
	s2 := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("ok"))}})
	bedrockTurn := llm.Message{Role: llm.RoleAssistant, Thinking: "t", Content: "hello",
		Continuation: &llm.Continuation{Provider: "bedrock", Data: []byte(`[{"type":"thinking","thinking":"t","signature":"sigB"},{"type":"text","text":"hello"}]`)}}
	mustRun(t, firstParty(t, s2, true), llm.Request{Messages: []llm.Message{user("a"), bedrockTurn, user("b")}, Thinking: llm.ThinkingLow})
	b2 := requests(t, s2)[0]
	if strings.Contains(string(b2.Raw), "sigB") || b2.Thinking == nil || len(b2.Messages[1].Content) != 1 {
		t.Errorf("bedrock continuation at the first-party API: %s", b2.Raw)
	}
}

func TestUnwritableRequestIsNotRetryable(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{})
	_, _, err := run(t, firstParty(t, s, false), llm.Request{Messages: []llm.Message{user("Hi")},
		Tools: []llm.ToolDef{{Name: "broken", Parameters: []byte(`{"type":`)}}})
	if e := llmError(t, err); e.Retryable || !strings.Contains(e.Error(), "tool broken") {
		t.Errorf("error %+v", e)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
