package providers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/llm/openai"
	"github.com/troupehq/troupe/runtime/llm/openairesponses"
	"github.com/troupehq/troupe/runtime/llm/providers"
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

func TestNewNamesTheAPIsItSpeaks(t *testing.T) {
	_, err := providers.New(context.Background(), providers.Endpoint{API: "carrier-pigeon"})
	if err == nil || !strings.Contains(err.Error(), `api "carrier-pigeon"`) || !strings.Contains(err.Error(), providers.APIOpenAI) {
		t.Errorf("unknown api: %v", err)
	}
}

func TestNewBuildsTheResponsesProvider(t *testing.T) {
	p, err := providers.New(context.Background(), providers.Endpoint{API: providers.APIOpenAIResponses, BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := p.(*openairesponses.Client)
	if !ok {
		t.Fatalf("openai-responses built %T", p)
	}
	if c.APIRoot() != "http://127.0.0.1:1/v1" {
		t.Errorf("api root %q", c.APIRoot())
	}
}
