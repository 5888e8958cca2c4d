package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
)

type captured struct {
	header http.Header
	path   string
	body   map[string]any
}

// captureServer records the request and answers with a minimal reply.
func captureServer(t *testing.T, got *captured) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.header, got.path = r.Header.Clone(), r.URL.Path
		b, _ := io.ReadAll(r.Body)
		got.body = nil
		if err := json.Unmarshal(b, &got.body); err != nil {
			t.Errorf("request body is not JSON: %v: %s", err, b)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func requireJSON(t *testing.T, got any, want string, what string) {
	t.Helper()
	var w any
	requireNoError(t, json.Unmarshal([]byte(want), &w))
	requireEqual(t, jsonText(got), jsonText(w), what)
}

func TestRequestBodyShape(t *testing.T) {
	var got captured
	srv := captureServer(t, &got)
	c := newTestClient(t, Config{
		BaseURL:          srv.URL + "/v1/",
		APIKey:           "k",
		Headers:          map[string]string{"X-Team": "a", "X-Both": "config"},
		SupportsThinking: true,
	})
	temp := 0.0
	req := llm.Request{
		Model: "qwen",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "be brief"},
			{Role: llm.RoleUser, Content: "what is this?", Images: []llm.Image{{MIMEType: "image/png", Data: "iVBORw0KGgo="}}},
			{Role: llm.RoleAssistant, Thinking: "look first", ToolCalls: []llm.ToolCall{
				{ID: "call_0", Name: "read_file", Arguments: `{"path":"a.go"}`},
				{ID: "call_1", Name: "pwd"},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_0", Content: "package a"},
			{Role: llm.RoleTool, ToolCallID: "call_1", Content: "/src"},
		},
		Tools: []llm.ToolDef{
			{Name: "read_file", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "pwd", Description: "Print the directory"},
		},
		MaxTokens:   100,
		Temperature: &temp,
		Thinking:    llm.ThinkingXHigh,
		Stream:      true,
		Headers:     map[string]string{"X-Both": "request"},
		SessionID:   "sess-1",
	}
	_, err := c.Stream(context.Background(), req, nil)
	requireNoError(t, err)
	requireEqual(t, got.path, "/v1/chat/completions", "path")
	requireJSON(t, got.body, `{
		"model":"qwen",
		"messages":[
			{"role":"system","content":"be brief"},
			{"role":"user","content":[
				{"type":"text","text":"what is this?"},
				{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},
			{"role":"assistant","content":null,"tool_calls":[
				{"id":"call_0","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}},
				{"id":"call_1","type":"function","function":{"name":"pwd","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"call_0","content":"package a"},
			{"role":"tool","tool_call_id":"call_1","content":"/src"}],
		"tools":[
			{"type":"function","function":{"name":"read_file","description":"Read a file",
				"parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}},
			{"type":"function","function":{"name":"pwd","description":"Print the directory",
				"parameters":{"type":"object","properties":{}}}}],
		"max_tokens":100,
		"temperature":0,
		"reasoning_effort":"high",
		"stream":true,
		"stream_options":{"include_usage":true}
	}`, "request body")
	for k, want := range map[string]string{
		"Authorization": "Bearer k",
		"X-Session-ID":  "sess-1",
		"X-Team":        "a",
		"X-Both":        "request",
		"Content-Type":  "application/json",
		"Accept":        "text/event-stream",
	} {
		requireEqual(t, got.header.Get(k), want, "header "+k)
	}
}

func TestRequestOptionalFields(t *testing.T) {
	var got captured
	srv := captureServer(t, &got)
	send := func(cfg Config, req llm.Request) error {
		cfg.BaseURL = srv.URL
		c := newTestClient(t, cfg)
		req.Messages = []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
		_, err := c.Stream(context.Background(), req, nil)
		return err
	}
	requireNoError(t, send(Config{}, llm.Request{Model: "m", Thinking: llm.ThinkingHigh}))
	requireJSON(t, got.body, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "minimal body (thinking unsupported)")
	if got.header.Get("Authorization") != "" || got.header.Get("X-Session-ID") != "" {
		t.Fatalf("unexpected auth or session header: %v", got.header)
	}
	requireEqual(t, got.header.Get("Accept"), "application/json", "accept")

	for level, want := range map[llm.ThinkingLevel]any{
		"": nil, llm.ThinkingOff: nil, llm.ThinkingMinimal: "minimal", llm.ThinkingLow: "low",
		llm.ThinkingMedium: "medium", llm.ThinkingHigh: "high", llm.ThinkingXHigh: "high",
	} {
		requireNoError(t, send(Config{SupportsThinking: true}, llm.Request{Thinking: level}))
		requireEqual(t, got.body["reasoning_effort"], want, "reasoning_effort for "+string(level))
	}
	if err := send(Config{SupportsThinking: true}, llm.Request{Thinking: "max"}); err == nil {
		t.Fatal("unknown thinking level accepted")
	}

	c := newTestClient(t, Config{BaseURL: srv.URL, PreserveThinking: true})
	_, err := c.Stream(context.Background(), llm.Request{Messages: []llm.Message{
		{Role: llm.RoleAssistant, Content: "a", Thinking: "t"},
	}}, nil)
	requireNoError(t, err)
	requireJSON(t, got.body["messages"], `[{"role":"assistant","content":"a","reasoning_content":"t"}]`, "preserved thinking")
}

func TestBaseURLRule(t *testing.T) {
	for _, tc := range []struct{ base, api, server string }{
		{"http://h:1", "http://h:1/v1", "http://h:1"},
		{"http://h:1/", "http://h:1/v1", "http://h:1"},
		{"http://h:1/v1", "http://h:1/v1", "http://h:1"},
		{"http://h:1/v1/", "http://h:1/v1", "http://h:1"},
		{"https://x.io/api/v1", "https://x.io/api/v1", "https://x.io/api"},
		{"http://h:1/proxy", "http://h:1/proxy/v1", "http://h:1/proxy"},
		{"http://h:1/v2", "http://h:1/v2", "http://h:1"},
		{" http://h:1/v1?x=1 ", "http://h:1/v1", "http://h:1"},
	} {
		c, err := New(Config{BaseURL: tc.base})
		requireNoError(t, err)
		requireEqual(t, [2]string{c.APIRoot(), c.ServerRoot()}, [2]string{tc.api, tc.server}, "roots of "+tc.base)
	}
	for _, bad := range []string{"", "h:1", "ftp://h/v1", "http://", "://x"} {
		if _, err := New(Config{BaseURL: bad}); err == nil {
			t.Errorf("base url %q accepted", bad)
		}
	}
}
