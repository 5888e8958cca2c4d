package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/llm/anthropic"
	"github.com/troupehq/troupe/testkit/llmserver"
)

const model = "claude-sonnet-4-5"

func firstParty(t *testing.T, s *llmserver.Server, thinking bool) *anthropic.Client {
	t.Helper()
	c, err := anthropic.New(anthropic.Config{BaseURL: s.URL(), APIKey: "sk-ant-test", SupportsThinking: thinking})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// run streams req and returns the reply, every chunk and the error.
func run(t *testing.T, p llm.Provider, req llm.Request) (*llm.Response, []llm.Chunk, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if req.Model == "" {
		req.Model = model
	}
	req.Stream = true
	var chunks []llm.Chunk
	resp, err := p.Stream(ctx, req, func(c llm.Chunk) error {
		chunks = append(chunks, c)
		return nil
	})
	return resp, chunks, err
}

func mustRun(t *testing.T, p llm.Provider, req llm.Request) (*llm.Response, []llm.Chunk) {
	t.Helper()
	resp, chunks, err := run(t, p, req)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	return resp, chunks
}

func user(text string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: text} }

// wireBody is the part of a Messages request the tests look at.
type wireBody struct {
	Model            string          `json:"model"`
	MaxTokens        int             `json:"max_tokens"`
	Stream           bool            `json:"stream"`
	AnthropicVersion string          `json:"anthropic_version"`
	System           []wireBlock     `json:"system"`
	Messages         []wireMessage   `json:"messages"`
	Tools            []wireTool      `json:"tools"`
	Thinking         *wireThinking   `json:"thinking"`
	Temperature      *float64        `json:"temperature"`
	Raw              json.RawMessage `json:"-"`
}

type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

type wireBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	Data         string          `json:"data"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	Content      []wireBlock     `json:"content"`
	Source       *wireSource     `json:"source"`
	CacheControl *struct {
		Type string `json:"type"`
	} `json:"cache_control"`
}

type wireSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *struct {
		Type string `json:"type"`
	} `json:"cache_control"`
}

type wireThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

func decode(t *testing.T, r llmserver.Request) wireBody {
	t.Helper()
	var b wireBody
	if err := r.Decode(&b); err != nil {
		t.Fatal(err)
	}
	b.Raw = r.Body
	return b
}

// requests are the requests that asked for a reply, decoded.
func requests(t *testing.T, s *llmserver.Server) []wireBody {
	t.Helper()
	var out []wireBody
	for _, r := range s.ChatRequests() {
		out = append(out, decode(t, r))
	}
	return out
}

func texts(chunks []llm.Chunk, kind llm.ChunkKind) []string {
	var out []string
	for _, c := range chunks {
		if c.Kind == kind {
			out = append(out, c.Text)
		}
	}
	return out
}

func llmError(t *testing.T, err error) *llm.Error {
	t.Helper()
	var e *llm.Error
	if err == nil {
		t.Fatal("want an error, got none")
	}
	if !asLLMError(err, &e) {
		t.Fatalf("want *llm.Error, got %T: %v", err, err)
	}
	return e
}

func asLLMError(err error, target **llm.Error) bool { return errors.As(err, target) }
