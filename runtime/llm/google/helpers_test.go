package google_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/llm/google"
	"github.com/troupehq/troupe/testkit/llmserver"
)

const (
	testModel = "gemini-2.5-flash"
	testKey   = "test-key"
)

// fake serves script on Gemini's routes and returns a client pointed at
// it, thinking or not.
func fake(t *testing.T, script llmserver.Script, thinking bool) (*llmserver.Server, *google.Client) {
	t.Helper()
	srv := llmserver.New(t, script)
	c, err := google.New(context.Background(), google.Config{BaseURL: srv.URL(), APIKey: testKey, SupportsThinking: thinking})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// collect runs one request and returns the chunks its sink saw.
func collect(t *testing.T, c *google.Client, req llm.Request) ([]llm.Chunk, *llm.Response, error) {
	t.Helper()
	var chunks []llm.Chunk
	resp, err := c.Stream(context.Background(), req, func(ch llm.Chunk) error {
		chunks = append(chunks, ch)
		return nil
	})
	return chunks, resp, err
}

func ask(text string) llm.Request {
	return llm.Request{Model: testModel, Stream: true, Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}}
}

// wireBody is the part of a generateContent request the tests look at,
// as the Gemini API reference names its fields.
type wireBody struct {
	Contents          []wireContent `json:"contents"`
	SystemInstruction *wireContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			Description          string          `json:"description"`
			ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		MaxOutputTokens int      `json:"maxOutputTokens"`
		Temperature     *float64 `json:"temperature"`
		ThinkingConfig  *struct {
			IncludeThoughts bool `json:"includeThoughts"`
			ThinkingBudget  int  `json:"thinkingBudget"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
}

type wireContent struct {
	Role  string     `json:"role"`
	Parts []wirePart `json:"parts"`
}

type wirePart struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	InlineData       *struct {
		MIMEType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FunctionCall *struct {
		ID   string         `json:"id"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string         `json:"id"`
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	} `json:"functionResponse"`
}

// sent decodes the n-th (0-based) reply request the fake received.
func sent(t *testing.T, srv *llmserver.Server, n int) (llmserver.Request, wireBody) {
	t.Helper()
	reqs := srv.ChatRequests()
	if len(reqs) <= n {
		t.Fatalf("the fake got %d requests, want more than %d", len(reqs), n)
	}
	var b wireBody
	if err := reqs[n].Decode(&b); err != nil {
		t.Fatal(err)
	}
	return reqs[n], b
}

func asError(t *testing.T, err error) *llm.Error {
	t.Helper()
	var e *llm.Error
	if err == nil {
		t.Fatal("no error")
	}
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	return e
}

func googleNew(baseURL, key string) (*google.Client, error) {
	return google.New(context.Background(), google.Config{BaseURL: baseURL, APIKey: key})
}
