package providers

import (
	"context"
	"fmt"
	"slices"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/llm/anthropic"
	"github.com/troupehq/troupe/runtime/llm/google"
	"github.com/troupehq/troupe/runtime/llm/openai"
	"github.com/troupehq/troupe/runtime/llm/openairesponses"
)

// API names: the wire format a provider speaks. They are also the
// llm.Continuation provider names, so a continuation goes back only to the
// API that wrote it.
const (
	APIOpenAI          = "openai"           // chat completions: OpenAI and every compatible server
	APIOpenAIResponses = "openai-responses" // OpenAI's Responses API
	APIAnthropic       = "anthropic"        // Anthropic's Messages API
	APIBedrock         = "bedrock"          // Anthropic models on AWS Bedrock
	APIVertex          = "vertex"           // Anthropic models on Google Cloud Vertex AI
	APIGoogle          = "google"           // the Gemini API
)

// Endpoint is everything a provider needs to reach one model's API.
type Endpoint struct {
	API string
	// BaseURL is the API's root; empty means the SDK's own default (or, for
	// the cloud platforms, the one their region implies).
	BaseURL string
	APIKey  string
	// Headers are sent with every request.
	Headers map[string]string
	// Thinking says the model can reason when asked.
	Thinking bool
	// Region and Project place Bedrock (AWS region) and Vertex (Google
	// Cloud region and project) requests.
	Region  string
	Project string
	// Env is the environment the cloud credential chains read (AWS_*,
	// GOOGLE_APPLICATION_CREDENTIALS); nil means an empty one.
	Env func(string) string
}

// builders are the APIs this build speaks, each with its constructor.
var builders = map[string]func(context.Context, Endpoint) (llm.Provider, error){
	APIOpenAI: func(_ context.Context, ep Endpoint) (llm.Provider, error) {
		return openai.New(openai.Config{BaseURL: ep.BaseURL, APIKey: ep.APIKey, Headers: ep.Headers, SupportsThinking: ep.Thinking})
	},
	APIGoogle: func(ctx context.Context, ep Endpoint) (llm.Provider, error) {
		return google.New(ctx, google.Config{BaseURL: ep.BaseURL, APIKey: ep.APIKey, Headers: ep.Headers, SupportsThinking: ep.Thinking})
	},
	APIOpenAIResponses: func(_ context.Context, ep Endpoint) (llm.Provider, error) {
		return openairesponses.New(openairesponses.Config{BaseURL: ep.BaseURL, APIKey: ep.APIKey, Headers: ep.Headers, SupportsThinking: ep.Thinking})
	},
	APIAnthropic: func(_ context.Context, ep Endpoint) (llm.Provider, error) { return anthropic.New(anthropicConfig(ep)) },
	APIBedrock: func(ctx context.Context, ep Endpoint) (llm.Provider, error) {
		return anthropic.NewBedrock(ctx, anthropicConfig(ep), anthropic.Cloud{Region: ep.Region, Env: ep.Env})
	},
	APIVertex: func(ctx context.Context, ep Endpoint) (llm.Provider, error) {
		return anthropic.NewVertex(ctx, anthropicConfig(ep), anthropic.Cloud{Region: ep.Region, Project: ep.Project, Env: ep.Env})
	},
}

// New builds the provider for ep.API.
func New(ctx context.Context, ep Endpoint) (llm.Provider, error) {
	build, ok := builders[ep.API]
	if !ok {
		return nil, fmt.Errorf("api %q: this build of troupe speaks %v", ep.API, APIs())
	}
	p, err := build(ctx, ep)
	if err != nil {
		return nil, fmt.Errorf("api %s: %w", ep.API, err)
	}
	return p, nil
}

// APIs lists the APIs this build speaks, sorted.
func APIs() []string {
	out := make([]string, 0, len(builders))
	for api := range builders {
		out = append(out, api)
	}
	slices.Sort(out)
	return out
}

func anthropicConfig(ep Endpoint) anthropic.Config {
	return anthropic.Config{BaseURL: ep.BaseURL, APIKey: ep.APIKey, Headers: ep.Headers, SupportsThinking: ep.Thinking}
}
