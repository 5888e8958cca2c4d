package providers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/troupehq/troupe/runtime/llm/anthropic"
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

func TestNewNamesTheAPIsItSpeaks(t *testing.T) {
	_, err := providers.New(context.Background(), providers.Endpoint{API: "carrier-pigeon"})
	if err == nil || !strings.Contains(err.Error(), `api "carrier-pigeon"`) || !strings.Contains(err.Error(), providers.APIOpenAI) {
		t.Errorf("unknown api: %v", err)
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
