package modelconfig

import (
	"testing"

	"github.com/troupehq/troupe/runtime/llm/providers"
)

// TestBuiltinProviders resolves each built-in provider from nothing but
// --provider and the variables an aionrs host or pi sets.
func TestBuiltinProviders(t *testing.T) {
	empty := Config{Path: "/home/x/.troupe/models.yml"}
	tests := []struct {
		name    string
		sel     Selection
		env     func(string) string
		want    Resolved // Model checked by ID only
		modelID string
	}{
		{"anthropic", Selection{Provider: Anthropic}, envOf(EnvAnthropicAPIKey, "sk-ant", EnvAnthropicBaseURL, "http://127.0.0.1:9/"),
			Resolved{Provider: Anthropic, API: providers.APIAnthropic, BaseURL: "http://127.0.0.1:9", BaseURLFrom: EnvAnthropicBaseURL, APIKey: "sk-ant", APIKeyFrom: "$ANTHROPIC_API_KEY", Listed: true},
			"claude-sonnet-4-5"},
		{"anthropic's own endpoint", Selection{Provider: Anthropic, Model: "claude-haiku-4-5"}, envOf(EnvAnthropicAPIKey, "sk-ant"),
			Resolved{Provider: Anthropic, API: providers.APIAnthropic, BaseURL: DefaultAnthropicBaseURL,
				BaseURLFrom: "the anthropic provider's default (neither $ANTHROPIC_BASE_URL nor base_url in /home/x/.troupe/models.yml is set)",
				APIKey:      "sk-ant", APIKeyFrom: "$ANTHROPIC_API_KEY", Listed: true},
			"claude-haiku-4-5"},
		{"google, pi's key", Selection{Provider: Google}, envOf(EnvGeminiAPIKey, "g1", EnvGoogleAPIKey, "g2", EnvGeminiBaseURL, "http://127.0.0.1:9"),
			Resolved{Provider: Google, API: providers.APIGoogle, BaseURL: "http://127.0.0.1:9", BaseURLFrom: EnvGeminiBaseURL, APIKey: "g1", APIKeyFrom: "$GEMINI_API_KEY", Listed: true},
			"gemini-2.5-pro"},
		{"google, genai's key", Selection{Provider: Google, Model: "gemini-2.5-flash"}, envOf(EnvGoogleAPIKey, "g2"),
			Resolved{Provider: Google, API: providers.APIGoogle, BaseURL: DefaultGeminiBaseURL,
				BaseURLFrom: "the google provider's default (neither $GOOGLE_GEMINI_BASE_URL nor base_url in /home/x/.troupe/models.yml is set)",
				APIKey:      "g2", APIKeyFrom: "$GOOGLE_API_KEY", Listed: true},
			"gemini-2.5-flash"},
		{"openai alone picks its default model", Selection{Provider: OpenAI}, envOf(EnvOpenAIAPIKey, "sk-1"),
			Resolved{Provider: OpenAI, API: providers.APIOpenAI, BaseURL: DefaultOpenAIBaseURL,
				BaseURLFrom: "the openai provider's default (neither $OPENAI_BASE_URL nor base_url in /home/x/.troupe/models.yml is set)",
				APIKey:      "sk-1", APIKeyFrom: "$OPENAI_API_KEY", Listed: true},
			"gpt-5"},
		{"an openai model on the Responses API", Selection{Provider: OpenAI, Model: "gpt-5-codex"}, envOf(EnvOpenAIAPIKey, "sk-1", EnvOpenAIBaseURL, "http://127.0.0.1:9/v1"),
			Resolved{Provider: OpenAI, API: providers.APIOpenAIResponses, BaseURL: "http://127.0.0.1:9/v1", BaseURLFrom: EnvOpenAIBaseURL, APIKey: "sk-1", APIKeyFrom: "$OPENAI_API_KEY", Listed: true},
			"gpt-5-codex"},
		{"bedrock", Selection{Provider: Bedrock}, envOf(EnvAWSRegion, "us-west-2", EnvAWSAccessKeyID, "AKIA", EnvAWSSecretAccessKey, "s", EnvAWSEndpointBedrock, "http://127.0.0.1:9"),
			Resolved{Provider: Bedrock, API: providers.APIBedrock, BaseURL: "http://127.0.0.1:9", BaseURLFrom: EnvAWSEndpointBedrock, Region: "us-west-2", Listed: true},
			"anthropic.claude-sonnet-4-5-20250929-v1:0"},
		{"bedrock, SDK's region and endpoint", Selection{Provider: Bedrock, Model: "us.anthropic.claude-opus-4-1-20250805-v1:0"},
			envOf(EnvAWSDefaultRegion, "eu-west-1", EnvAWSProfile, "dev", EnvAWSEndpoint, "http://127.0.0.1:8"),
			Resolved{Provider: Bedrock, API: providers.APIBedrock, BaseURL: "http://127.0.0.1:8", BaseURLFrom: EnvAWSEndpoint, Region: "eu-west-1", Listed: true},
			"us.anthropic.claude-opus-4-1-20250805-v1:0"},
		{"bedrock, the region's endpoint", Selection{Provider: Bedrock}, envOf(EnvAWSRegion, "us-east-1"),
			Resolved{Provider: Bedrock, API: providers.APIBedrock, BaseURLFrom: "the bedrock region", Region: "us-east-1", Listed: true},
			"anthropic.claude-sonnet-4-5-20250929-v1:0"},
		{"vertex", Selection{Provider: Vertex, BaseURL: "http://127.0.0.1:9/v1"},
			envOf(EnvVertexProjectID, "proj", EnvVertexRegion, "us-east5", EnvGoogleCredentials, "/k.json"),
			Resolved{Provider: Vertex, API: providers.APIVertex, BaseURL: "http://127.0.0.1:9/v1", BaseURLFrom: "--base-url", Region: "us-east5", Project: "proj", Listed: true},
			"claude-sonnet-4-5@20250929"},
		{"vertex, Anthropic SDK's variables", Selection{Provider: Vertex, Model: "claude-haiku-4-5@20251001"},
			envOf(EnvGoogleCloudProject, "gp", EnvCloudMLRegion, "global"),
			Resolved{Provider: Vertex, API: providers.APIVertex, BaseURLFrom: "the vertex region", Region: "global", Project: "gp", Listed: true},
			"claude-haiku-4-5@20251001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(empty, tt.sel, tt.env)
			requireNoError(t, err)
			if got.Model.ID != tt.modelID {
				t.Errorf("model %q, want %q", got.Model.ID, tt.modelID)
			}
			got.Model = Model{}
			requireEqual(t, got, tt.want)
		})
	}
}

// TestBuiltinErrors: each message names what to set, a missing key in
// the aionrs spec's words ("ANTHROPIC_API_KEY not set").
func TestBuiltinErrors(t *testing.T) {
	empty := Config{Path: "/h/models.yml"}
	tests := []struct {
		name string
		sel  Selection
		env  func(string) string
		want string
	}{
		{"anthropic key", Selection{Provider: Anthropic}, nil,
			`ANTHROPIC_API_KEY not set: provider "anthropic" needs an API key from $ANTHROPIC_API_KEY, api_key_env under providers.anthropic in /h/models.yml, or --api-key`},
		{"gemini key", Selection{Provider: Google}, envOf(EnvGeminiBaseURL, "https://proxy.example"),
			`GEMINI_API_KEY not set: provider "google" needs an API key from $GEMINI_API_KEY or $GOOGLE_API_KEY, api_key_env under providers.google in /h/models.yml, or --api-key`},
		{"bedrock region", Selection{Provider: Bedrock}, envOf(EnvAWSAccessKeyID, "AKIA"),
			`AWS_REGION not set: provider "bedrock" needs an AWS region: set AWS_REGION or AWS_DEFAULT_REGION, or region under providers.bedrock in /h/models.yml`},
		{"vertex project", Selection{Provider: Vertex}, envOf(EnvVertexRegion, "us-east5"),
			`VERTEX_PROJECT_ID not set: provider "vertex" needs a Google Cloud project: set VERTEX_PROJECT_ID or GOOGLE_CLOUD_PROJECT, or project under providers.vertex in /h/models.yml`},
		{"vertex region", Selection{Provider: Vertex}, envOf(EnvVertexProjectID, "p"),
			`VERTEX_REGION not set: provider "vertex" needs a Google Cloud region: set VERTEX_REGION or CLOUD_ML_REGION, or region under providers.vertex in /h/models.yml`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Resolve(empty, tt.sel, tt.env)
			requireError(t, err, tt.want)
		})
	}
}

func TestCatalogAliases(t *testing.T) {
	env := envOf(EnvAnthropicAPIKey, "k")
	r, err := Resolve(Config{}, Selection{Provider: Anthropic, Model: "claude-sonnet-4-5-20250929"}, env)
	requireNoError(t, err)
	if !r.Listed || r.Model.ID != "claude-sonnet-4-5-20250929" || r.Model.Pricing.CacheWrite != 3.75 || r.Model.ContextWindow != 200000 {
		t.Errorf("dated id: %+v", r)
	}
	r, err = Resolve(Config{}, Selection{Provider: Anthropic, Model: "claude-next"}, env)
	requireNoError(t, err)
	if r.Listed || r.Model.Pricing != (Pricing{}) {
		t.Errorf("a model the catalog does not know: %+v", r)
	}
}

// TestModelsYMLOverridesCatalog: settings and models under a built-in
// provider's name win; an entry with a catalog id replaces it whole;
// api: per provider and per model.
func TestModelsYMLOverridesCatalog(t *testing.T) {
	cfg := mustParse(t, `
providers:
  anthropic:
    base_url: https://gateway.example
    models:
      - id: claude-sonnet-4-5
        context_window: 1000000
  claude-work:
    api: anthropic
    api_key_env: WORK_KEY
    models:
      - id: claude-opus-4-1
  lab:
    base_url: https://lab.example/v1
    api_key: k
    models:
      - id: gpt-5-codex
        api: openai-responses
      - id: qwen
`)
	env := envOf(EnvAnthropicAPIKey, "sk-ant", "WORK_KEY", "w")
	r, err := Resolve(cfg, Selection{Provider: Anthropic}, env)
	requireNoError(t, err)
	if r.BaseURL != "https://gateway.example" || r.Model.ID != "claude-sonnet-4-5" || r.Model.ContextWindow != 1000000 || r.Model.Pricing != (Pricing{}) || r.Model.Thinking {
		t.Errorf("override: %+v", r)
	}
	r, err = Resolve(cfg, Selection{Provider: Anthropic, Model: "claude-opus-4-1"}, env)
	requireNoError(t, err)
	if r.Model.Pricing.Output != 75 || !r.Listed {
		t.Errorf("the catalog under a file entry: %+v", r)
	}
	r, err = Resolve(cfg, Selection{Provider: "claude-work"}, env)
	requireNoError(t, err)
	if r.API != providers.APIAnthropic || r.BaseURL != DefaultAnthropicBaseURL || r.APIKey != "w" || r.APIKeyFrom != "$WORK_KEY (api_key_env under providers.claude-work in p)" || r.Model.Pricing != (Pricing{}) {
		t.Errorf("api: anthropic under another name: %+v", r)
	}
	r, err = Resolve(cfg, Selection{Provider: "claude-work", Model: "claude-haiku-4-5"}, env)
	requireNoError(t, err)
	if !r.Listed || r.Model.Pricing.Output != 5 {
		t.Errorf("api: anthropic under another name: %+v", r)
	}
	r, err = Resolve(cfg, Selection{Provider: "lab", Model: "gpt-5-codex"}, env)
	requireNoError(t, err)
	if r.API != providers.APIOpenAIResponses {
		t.Errorf("per-model api: %+v", r)
	}
	r, err = Resolve(cfg, Selection{Provider: "lab", Model: "qwen"}, env)
	requireNoError(t, err)
	if r.API != providers.APIOpenAI || r.APIKeyFrom != "api_key under providers.lab in p" {
		t.Errorf("default api: %+v", r)
	}
	gateway := mustParse(t, "providers:\n  gw:\n    api: anthropic\n    base_url: https://gw.example\n    api_key: k\n")
	r, err = Resolve(gateway, Selection{Provider: "gw"}, nil)
	requireNoError(t, err)
	if r.Model.ID != "claude-sonnet-4-5" || r.Model.Pricing.Output != 15 || r.BaseURL != "https://gw.example" {
		t.Errorf("a native API's catalog under another name: %+v", r)
	}
	listed := gateway.Available(nil)
	requireEqual(t, len(listed), 3)
	requireEqual(t, listed[0].Provider+"/"+listed[0].Model.ID+" "+listed[0].API, "gw/claude-sonnet-4-5 anthropic")
	_, err = Parse([]byte("providers:\n  x:\n    api: carrier-pigeon\n"), "bad.yml")
	requireError(t, err, `bad.yml: providers.x.api: "carrier-pigeon" is not an API: want openai, openai-responses, anthropic, google, bedrock, vertex`)
}

// TestAvailable: the file's providers, then the catalogs of the built-in
// providers with credentials; openai's only for OpenAI's own endpoint.
func TestAvailable(t *testing.T) {
	cfg := mustParse(t, "providers:\n  local:\n    base_url: http://127.0.0.1:8080/v1\n    models: [{id: qwen}]\n")
	ids := func(env func(string) string) []string {
		var out []string
		for _, r := range cfg.Available(env) {
			out = append(out, r.Provider+"/"+r.Model.ID)
		}
		return out
	}
	requireEqual(t, ids(envOf(EnvOpenAIBaseURL, "http://127.0.0.1:9/v1", EnvOpenAIAPIKey, "k")), []string{"local/qwen"})
	requireEqual(t, ids(envOf(EnvAnthropicAPIKey, "k", EnvGeminiAPIKey, "g")), []string{
		"local/qwen",
		"anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-1", "anthropic/claude-haiku-4-5",
		"google/gemini-2.5-pro", "google/gemini-2.5-flash", "google/gemini-2.5-flash-lite",
	})
	got := ids(envOf(EnvOpenAIAPIKey, "k", EnvAWSRegion, "us-east-1", EnvAWSProfile, "p", EnvVertexProjectID, "p", EnvVertexRegion, "r"))
	requireEqual(t, len(got), 1+6+3+3)
	requireEqual(t, got[1], "openai/gpt-5")
	requireEqual(t, got[7], "bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0")
	requireEqual(t, got[10], "vertex/claude-sonnet-4-5@20250929")
}
