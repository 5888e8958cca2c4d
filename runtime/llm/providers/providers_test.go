package providers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/llm/google"
	"github.com/troupehq/troupe/runtime/llm/openai"
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
