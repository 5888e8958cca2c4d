package anthropic_test

import (
	"context"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/llm/anthropic"
	"github.com/troupehq/troupe/testkit/llmserver"
)

const bedrockModel = "anthropic.claude-sonnet-4-5-20250929-v1:0"

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func bedrockClient(t *testing.T, s *llmserver.Server) *anthropic.Client {
	t.Helper()
	c, err := anthropic.NewBedrock(context.Background(), anthropic.Config{BaseURL: s.URL()}, anthropic.Cloud{Env: envOf(map[string]string{
		"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
	})})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBedrockTextAndSignedRequest(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.Thinking("hm"), llmserver.Text("Hello"), llmserver.Text(" there"),
		llmserver.ReportUsage(llmserver.Usage{PromptTokens: 9, CompletionTokens: 2}),
	)}})
	resp, chunks := mustRun(t, bedrockClient(t, s), llm.Request{Model: bedrockModel, Messages: []llm.Message{user("Hi")}})
	if resp.Message.Content != "Hello there" || resp.Message.Thinking != "hm" || len(texts(chunks, llm.ChunkText)) != 2 || resp.Usage.TotalTokens != 11 {
		t.Errorf("reply %+v", resp)
	}
	if c := resp.Message.Continuation; c == nil || c.Provider != "bedrock" {
		t.Errorf("continuation %+v", c)
	}
	reqs := s.ChatRequests()
	if len(reqs) != 1 || reqs[0].Path != "/model/"+bedrockModel+"/invoke-with-response-stream" {
		t.Fatalf("requests %+v", reqs)
	}
	auth := reqs[0].Header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") || !strings.Contains(auth, "/us-east-1/bedrock/aws4_request") {
		t.Errorf("authorization %q", auth)
	}
	b := decode(t, reqs[0])
	if b.AnthropicVersion == "" || b.Model != "" || strings.Contains(string(b.Raw), `"stream"`) {
		t.Errorf("body %s", b.Raw)
	}
}

func TestBedrockToolCall(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.ToolCallChunks("toolu_bdrk", "read", `{"path"`, `:"a"}`),
	)}})
	resp, _ := mustRun(t, bedrockClient(t, s), llm.Request{Model: bedrockModel, Messages: []llm.Message{user("Read a")}})
	if resp.FinishReason != llm.FinishToolCalls || len(resp.Message.ToolCalls) != 1 ||
		resp.Message.ToolCalls[0] != (llm.ToolCall{ID: "toolu_bdrk", Name: "read", Arguments: `{"path":"a"}`}) {
		t.Errorf("reply %+v", resp)
	}
}

func TestBedrockErrors(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 429, Message: "Too many requests, please wait before trying again.", Header: map[string]string{"Retry-After": "3"}})),
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 400, Message: "prompt is too long: 201000 tokens > 200000 maximum"})),
		llmserver.Steps(llmserver.Text("half"), llmserver.StreamError(llmserver.APIError{Status: 503, Message: "Bedrock is unable to process your request."})),
	}})
	c := bedrockClient(t, s)
	req := llm.Request{Model: bedrockModel, Messages: []llm.Message{user("Hi")}}
	_, _, err := run(t, c, req)
	if e := llmError(t, err); !e.Retryable || e.Status != 429 || e.Type != "ThrottlingException" || e.RetryAfter.Seconds() != 3 ||
		e.Message != "Too many requests, please wait before trying again." {
		t.Errorf("throttled: %+v", e)
	}
	_, _, err = run(t, c, req)
	if e := llmError(t, err); e.Retryable || !e.ContextOverflow || e.Type != "ValidationException" {
		t.Errorf("too long: %+v", e)
	}
	_, _, err = run(t, c, req)
	if e := llmError(t, err); !e.Retryable || e.Type != "serviceUnavailableException" || e.Status != 503 {
		t.Errorf("mid-stream: %+v", e)
	}
}

func TestBedrockNeedsARegion(t *testing.T) {
	_, err := anthropic.NewBedrock(context.Background(), anthropic.Config{BaseURL: "http://127.0.0.1:1"}, anthropic.Cloud{})
	if err == nil || !strings.Contains(err.Error(), "AWS_REGION") {
		t.Errorf("err %v", err)
	}
}

func vertexClient(t *testing.T, s *llmserver.Server, project string) *anthropic.Client {
	t.Helper()
	creds, err := s.WriteVertexCredentials(t.TempDir(), "file-project")
	if err != nil {
		t.Fatal(err)
	}
	c, err := anthropic.NewVertex(context.Background(), anthropic.Config{BaseURL: s.URL()}, anthropic.Cloud{
		Region: "us-east5", Project: project,
		Env: envOf(map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": creds}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestVertexTextWithOAuthToken(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("Hello from Vertex"))}})
	resp, _ := mustRun(t, vertexClient(t, s, "my-project"), llm.Request{Model: "claude-sonnet-4-5@20250929", Messages: []llm.Message{user("Hi")}})
	if resp.Message.Content != "Hello from Vertex" || resp.Model != "claude-sonnet-4-5@20250929" {
		t.Errorf("reply %+v", resp)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].Path != llmserver.VertexTokenPath {
		t.Fatalf("requests %+v", reqs)
	}
	r := reqs[1]
	if r.Path != "/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict" ||
		r.Header.Get("Authorization") != "Bearer ya29.llmserver-1" {
		t.Errorf("request %s %v", r.Path, r.Header)
	}
	if b := decode(t, r); b.AnthropicVersion == "" || b.Model != "" || !b.Stream {
		t.Errorf("body %s", b.Raw)
	}
}

func TestVertexToolCallAndProjectFromCredentials(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(
		llmserver.ToolCall("", "ls", `{"dir":"."}`), llmserver.ToolCall("", "ls", `{"dir":".."}`),
	)}})
	resp, _ := mustRun(t, vertexClient(t, s, ""), llm.Request{Model: "claude-haiku-4-5", Messages: []llm.Message{user("List")}})
	if len(resp.Message.ToolCalls) != 2 || resp.Message.ToolCalls[1].Arguments != `{"dir":".."}` || resp.FinishReason != llm.FinishToolCalls {
		t.Errorf("reply %+v", resp)
	}
	if p := s.ChatRequests()[0].Path; !strings.HasPrefix(p, "/v1/projects/file-project/locations/us-east5/") {
		t.Errorf("path %s", p)
	}
}

func TestVertexErrors(t *testing.T) {
	s := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 529, Header: map[string]string{"Retry-After": "5"}})),
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 404, Message: "Publisher model not found"})),
	}})
	c := vertexClient(t, s, "p")
	req := llm.Request{Model: "claude-opus-4-1", Messages: []llm.Message{user("Hi")}}
	_, _, err := run(t, c, req)
	if e := llmError(t, err); !e.Retryable || e.Type != "overloaded_error" || e.RetryAfter.Seconds() != 5 {
		t.Errorf("overloaded: %+v", e)
	}
	_, _, err = run(t, c, req)
	if e := llmError(t, err); e.Retryable || e.Status != 404 || e.Message != "Publisher model not found" {
		t.Errorf("not found: %+v", e)
	}
}
