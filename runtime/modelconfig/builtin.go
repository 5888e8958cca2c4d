package modelconfig

import (
	"regexp"
	"strings"
	"sync"

	"github.com/troupehq/troupe/runtime/llm/providers"
)

// builtin is a provider troupe knows without models.yml: its API, the
// variables its key and base URL come from (the first one set wins) and
// its catalog, the sensible default model first.
type builtin struct {
	name        string
	api         string
	keyEnv      []string
	baseEnv     []string
	defaultBase string // "" for the cloud platforms: their region implies it
	models      []Model
}

// Prices are the providers' list prices in USD per million tokens (cache
// write: Anthropic's five-minute cache; OpenAI and Gemini charge no write),
// context windows and output limits as their model pages give them.
var (
	claudeOpus41 = Model{Name: "Claude Opus 4.1", ContextWindow: 200000, MaxOutputTokens: 32000, Thinking: true,
		Pricing: Pricing{Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75}}
	claudeSonnet45 = Model{Name: "Claude Sonnet 4.5", ContextWindow: 200000, MaxOutputTokens: 64000, Thinking: true,
		Pricing: Pricing{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
	claudeHaiku45 = Model{Name: "Claude Haiku 4.5", ContextWindow: 200000, MaxOutputTokens: 64000, Thinking: true,
		Pricing: Pricing{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}}
)

// withID is m under a platform's id for it.
func withID(m Model, id string) Model {
	m.ID = id
	return m
}

// builtins are in the order "known providers:" and model lists name them.
var builtins = []builtin{
	{
		name: OpenAI, api: providers.APIOpenAI,
		keyEnv: []string{EnvOpenAIAPIKey}, baseEnv: []string{EnvOpenAIBaseURL}, defaultBase: DefaultOpenAIBaseURL,
		models: []Model{
			{ID: "gpt-5", Name: "GPT-5", ContextWindow: 400000, MaxOutputTokens: 128000, Thinking: true,
				Pricing: Pricing{Input: 1.25, Output: 10, CacheRead: 0.125}},
			{ID: "gpt-5-mini", Name: "GPT-5 mini", ContextWindow: 400000, MaxOutputTokens: 128000, Thinking: true,
				Pricing: Pricing{Input: 0.25, Output: 2, CacheRead: 0.025}},
			// Served only by the Responses API.
			{ID: "gpt-5-codex", Name: "GPT-5-Codex", API: providers.APIOpenAIResponses, ContextWindow: 400000, MaxOutputTokens: 128000, Thinking: true,
				Pricing: Pricing{Input: 1.25, Output: 10, CacheRead: 0.125}},
			{ID: "gpt-4.1", Name: "GPT-4.1", ContextWindow: 1047576, MaxOutputTokens: 32768,
				Pricing: Pricing{Input: 2, Output: 8, CacheRead: 0.5}},
			{ID: "o3", Name: "o3", ContextWindow: 200000, MaxOutputTokens: 100000, Thinking: true,
				Pricing: Pricing{Input: 2, Output: 8, CacheRead: 0.5}},
			{ID: "o4-mini", Name: "o4-mini", ContextWindow: 200000, MaxOutputTokens: 100000, Thinking: true,
				Pricing: Pricing{Input: 1.1, Output: 4.4, CacheRead: 0.275}},
		},
	},
	{
		name: Anthropic, api: providers.APIAnthropic,
		keyEnv: []string{EnvAnthropicAPIKey}, baseEnv: []string{EnvAnthropicBaseURL}, defaultBase: DefaultAnthropicBaseURL,
		models: []Model{
			withID(claudeSonnet45, "claude-sonnet-4-5"),
			withID(claudeOpus41, "claude-opus-4-1"),
			withID(claudeHaiku45, "claude-haiku-4-5"),
		},
	},
	{
		name: Google, api: providers.APIGoogle,
		keyEnv: []string{EnvGeminiAPIKey, EnvGoogleAPIKey}, baseEnv: []string{EnvGeminiBaseURL}, defaultBase: DefaultGeminiBaseURL,
		models: []Model{
			{ID: "gemini-2.5-pro", Name: "Gemini 2.5 Pro", ContextWindow: 1048576, MaxOutputTokens: 65536, Thinking: true,
				Pricing: Pricing{Input: 1.25, Output: 10, CacheRead: 0.125}},
			{ID: "gemini-2.5-flash", Name: "Gemini 2.5 Flash", ContextWindow: 1048576, MaxOutputTokens: 65536, Thinking: true,
				Pricing: Pricing{Input: 0.3, Output: 2.5, CacheRead: 0.03}},
			{ID: "gemini-2.5-flash-lite", Name: "Gemini 2.5 Flash-Lite", ContextWindow: 1048576, MaxOutputTokens: 65536, Thinking: true,
				Pricing: Pricing{Input: 0.1, Output: 0.4, CacheRead: 0.01}},
		},
	},
	{
		// Bedrock's model ids; a cross-region inference profile
		// ("us.", "eu.", "global." before the id) finds the same entry.
		name: Bedrock, api: providers.APIBedrock,
		baseEnv: []string{EnvAWSEndpointBedrock, EnvAWSEndpoint},
		models: []Model{
			withID(claudeSonnet45, "anthropic.claude-sonnet-4-5-20250929-v1:0"),
			withID(claudeOpus41, "anthropic.claude-opus-4-1-20250805-v1:0"),
			withID(claudeHaiku45, "anthropic.claude-haiku-4-5-20251001-v1:0"),
		},
	},
	{
		name: Vertex, api: providers.APIVertex,
		models: []Model{
			withID(claudeSonnet45, "claude-sonnet-4-5@20250929"),
			withID(claudeOpus41, "claude-opus-4-1@20250805"),
			withID(claudeHaiku45, "claude-haiku-4-5@20251001"),
		},
	},
}

func builtinProvider(name string) (builtin, bool) {
	for _, b := range builtins {
		if b.name == name {
			return b, true
		}
	}
	return builtin{}, false
}

// Catalog lists the built-in models of provider name (a built-in
// provider's), default first; nil for any other name.
func Catalog(name string) []Model {
	b, ok := builtinProvider(name)
	if !ok {
		return nil
	}
	out := make([]Model, 0, len(b.models))
	for _, m := range b.models {
		out = append(out, m.withDefaults())
	}
	return out
}

// catalogOf is the catalog p's model ids are looked up in: its own as a
// built-in provider, else that of the built-in provider speaking its
// native API (a provider with api: anthropic serves Anthropic's ids).
func catalogOf(p Provider) (builtin, bool) {
	if b, ok := builtinProvider(p.Name); ok {
		return b, true
	}
	api := p.api(Model{})
	if api == providers.APIOpenAIResponses {
		api = providers.APIOpenAI
	}
	if !isNative(api) {
		return builtin{}, false
	}
	for _, b := range builtins {
		if b.api == api {
			return b, true
		}
	}
	return builtin{}, false
}

// datedSuffix is the snapshot date Anthropic's ids may carry
// (claude-sonnet-4-5-20250929 is claude-sonnet-4-5).
var datedSuffix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-20\d{6}$`) })

// inferenceProfile is Bedrock's cross-region prefix.
var inferenceProfile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(us|eu|apac|jp|au|ca|us-gov|global)\.`) })

// catalogModel finds id in b's catalog, also under the other spellings
// its platform accepts for the same model.
func (b builtin) catalogModel(id string) (Model, bool) {
	for _, cand := range []string{id, datedSuffix().ReplaceAllString(id, ""), inferenceProfile().ReplaceAllString(id, "")} {
		for _, m := range b.models {
			if m.ID == cand {
				m.ID = id
				return m, true
			}
		}
	}
	return Model{}, false
}

// merged is p with its catalog (catalogOf) under it: a built-in
// provider's settings where the file leaves them out, and the catalog's
// models after the file's. A model the file lists with a catalog id
// replaces that catalog entry whole (a partial entry would leave no way
// to say "no thinking" or "free").
func (p Provider) merged() Provider {
	b, ok := catalogOf(p)
	if !ok {
		return p
	}
	if p.API == "" && b.name == p.Name {
		p.API = b.api
	}
	models := append([]Model(nil), p.Models...)
	for _, m := range b.models {
		if _, listed := p.model(m.ID); !listed {
			models = append(models, m.withDefaults())
		}
	}
	p.Models = models
	return p
}

// api is the API m is spoken to with on p.
func (p Provider) api(m Model) string {
	switch {
	case m.API != "":
		return m.API
	case p.API != "":
		return p.API
	}
	if b, ok := builtinProvider(p.Name); ok {
		return b.api
	}
	return providers.APIOpenAI
}

// isNative says whether an API is one provider's own (its model ids mean
// the same everywhere), as opposed to the OpenAI-compatible format many
// servers speak with their own models.
func isNative(api string) bool {
	return api != providers.APIOpenAI
}

// apiNames are the values api: accepts.
var apiNames = []string{
	providers.APIOpenAI, providers.APIOpenAIResponses, providers.APIAnthropic,
	providers.APIGoogle, providers.APIBedrock, providers.APIVertex,
}

// first is the first of names set in env (surrounding spaces dropped),
// and which one it was.
func first(env func(string) string, names ...string) (value, name string) {
	for _, n := range names {
		if v := strings.TrimSpace(env(n)); v != "" {
			return v, n
		}
	}
	return "", ""
}
