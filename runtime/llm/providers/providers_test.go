package providers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/llm/anthropic"
	"github.com/troupehq/troupe/runtime/llm/google"
	"github.com/troupehq/troupe/runtime/llm/openai"
	"github.com/troupehq/troupe/runtime/llm/openairesponses"
	"github.com/troupehq/troupe/runtime/llm/providers"
	"github.com/troupehq/troupe/testkit/llmserver"
)

func TestNewBuildsTheAPIsProvider(t *testing.T) {
	p, err := providers.New(context.Background(), providers.Endpoint{API: providers.APIOpenAI, BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*openai.Client); !ok {
		t.Errorf("openai built %T", p)
	}
}

func TestNewBuildsGoogle(t *testing.T) {
	p, err := providers.New(context.Background(), providers.Endpoint{API: providers.APIGoogle, BaseURL: "http://127.0.0.1:1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*google.Client); !ok {
		t.Errorf("google built %T", p)
	}
	if _, err := providers.New(context.Background(), providers.Endpoint{API: providers.APIGoogle}); err == nil || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Errorf("google without a key: %v", err)
	}
}

func TestNewNamesTheAPIsItSpeaks(t *testing.T) {
	_, err := providers.New(context.Background(), providers.Endpoint{API: "carrier-pigeon"})
	if err == nil || !strings.Contains(err.Error(), `api "carrier-pigeon"`) || !strings.Contains(err.Error(), providers.APIOpenAI) {
		t.Errorf("unknown api: %v", err)
	}
}

// TestResponsesProviderAnswersFromTheFake is the endpoint a scenario row
// for openai-responses uses: the fake's URL (with or without /v1), a key
// and Thinking for a model that reasons.
func TestResponsesProviderAnswersFromTheFake(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Thinking("Hmm."), llmserver.Text("Hi."))}})
	p, err := providers.New(context.Background(), providers.Endpoint{API: providers.APIOpenAIResponses, BaseURL: srv.URL(), APIKey: "k", Thinking: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*openairesponses.Client); !ok {
		t.Fatalf("openai-responses built %T", p)
	}
	resp, err := p.Stream(context.Background(), llm.Request{Model: "gpt-5", Stream: true, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Hi." || resp.Message.Thinking != "Hmm." || resp.Message.Continuation.For(providers.APIOpenAIResponses) == nil {
		t.Errorf("message %+v", resp.Message)
	}
	if reqs := srv.ResponsesRequests(); len(reqs) != 1 || reqs[0].Path != "/v1/responses" {
		t.Errorf("requests %+v", reqs)
	}
}

func TestNewBuildsTheAnthropicPlatforms(t *testing.T) {
	env := map[string]string{"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent/creds.json"}
	getenv := func(k string) string { return env[k] }
	for _, ep := range []providers.Endpoint{
		{API: providers.APIAnthropic, BaseURL: "http://127.0.0.1:1", APIKey: "k"},
		{API: providers.APIBedrock, BaseURL: "http://127.0.0.1:1", Region: "us-east-1", Env: getenv},
	} {
		p, err := providers.New(context.Background(), ep)
		if err != nil {
			t.Fatalf("%s: %v", ep.API, err)
		}
		if _, ok := p.(*anthropic.Client); !ok {
			t.Errorf("%s built %T", ep.API, p)
		}
	}
	_, err := providers.New(context.Background(), providers.Endpoint{API: providers.APIVertex, BaseURL: "http://127.0.0.1:1", Region: "us-east5", Env: getenv})
	if err == nil || !strings.Contains(err.Error(), "GOOGLE_APPLICATION_CREDENTIALS") {
		t.Errorf("vertex without a readable credentials file: %v", err)
	}
}
