package modelconfig

import (
	"errors"
	"testing"
)

const resolveYML = "testdata/resolve.yml"

func loadTestdata(t *testing.T, path string) Config {
	t.Helper()
	cfg, err := Load(path)
	requireNoError(t, err)
	return cfg
}

// unlisted is what Resolve assumes for a model models.yml does not list.
func unlisted(id string) Model {
	return Model{ID: id, Name: id, ContextWindow: DefaultContextWindow, ToolStyle: ToolStyleAuto, MaxThinking: ThinkingOff}
}

func TestResolve(t *testing.T) {
	file := loadTestdata(t, resolveYML)
	local := file.Providers[0]
	router := file.Providers[1]
	openaiFile := file.Providers[len(file.Providers)-1]
	empty := Config{Path: "/home/x/.troupe/models.yml"}

	tests := []struct {
		name string
		cfg  Config
		sel  Selection
		env  func(string) string
		want Resolved
	}{
		{"default provider and model", file, Selection{}, nil,
			Resolved{Provider: "local", BaseURL: "http://127.0.0.1:8080/v1", Model: local.Models[0], Listed: true}},
		{"default model only for the default provider", file, Selection{Provider: "router"}, envOf("ROUTER_KEY", "rk"),
			Resolved{Provider: "router", BaseURL: "https://openrouter.ai/api/v1", APIKey: "rk",
				Headers: map[string]string{"X-Title": "troupe"}, Model: router.Models[0], Listed: true}},
		{"unlisted model gets defaults", file, Selection{Provider: "local", Model: "llama-3"}, nil,
			Resolved{Provider: "local", BaseURL: "http://127.0.0.1:8080/v1", Model: unlisted("llama-3")}},
		{"model listed by one provider selects it", file, Selection{Model: "only-keyed"}, nil,
			Resolved{Provider: "keyed", BaseURL: "https://keyed.example/v1", APIKey: "file-key", Model: file.Providers[2].Models[0], Listed: true}},
		{"default provider wins a shared model", file, Selection{Model: "shared"}, nil,
			Resolved{Provider: "local", BaseURL: "http://127.0.0.1:8080/v1", Model: local.Models[1], Listed: true}},
		{"id with slash listed whole", file, Selection{Model: "anthropic/claude-sonnet-4"}, envOf("ROUTER_KEY", "rk"),
			Resolved{Provider: "router", BaseURL: "https://openrouter.ai/api/v1", APIKey: "rk",
				Headers: map[string]string{"X-Title": "troupe"}, Model: router.Models[0], Listed: true}},
		{"id starting with its provider listed whole", file, Selection{Model: "router/auto"}, envOf("ROUTER_KEY", "rk"),
			Resolved{Provider: "router", BaseURL: "https://openrouter.ai/api/v1", APIKey: "rk",
				Headers: map[string]string{"X-Title": "troupe"}, Model: router.Models[1], Listed: true}},
		{"provider/model shorthand", file, Selection{Model: "router/anthropic/claude-sonnet-4"}, envOf("ROUTER_KEY", "rk"),
			Resolved{Provider: "router", BaseURL: "https://openrouter.ai/api/v1", APIKey: "rk",
				Headers: map[string]string{"X-Title": "troupe"}, Model: router.Models[0], Listed: true}},
		{"shorthand to an unlisted model", file, Selection{Model: "local/llama-3"}, nil,
			Resolved{Provider: "local", BaseURL: "http://127.0.0.1:8080/v1", Model: unlisted("llama-3")}},
		{"unknown prefix stays in the id", file, Selection{Model: "meta/llama-3"}, nil,
			Resolved{Provider: "local", BaseURL: "http://127.0.0.1:8080/v1", Model: unlisted("meta/llama-3")}},
		{"explicit provider keeps slashes in the id", file, Selection{Provider: "local", Model: "router/auto"}, nil,
			Resolved{Provider: "local", BaseURL: "http://127.0.0.1:8080/v1", Model: unlisted("router/auto")}},
		{"flags override file and env", file,
			Selection{Provider: "router", BaseURL: "https://other.example/v2/", APIKey: "flag-key"}, envOf("ROUTER_KEY", "rk"),
			Resolved{Provider: "router", BaseURL: "https://other.example/v2", APIKey: "flag-key",
				Headers: map[string]string{"X-Title": "troupe"}, Model: router.Models[0], Listed: true}},
		{"flag key over api_key", file, Selection{Provider: "keyed", APIKey: " flag-key "}, nil,
			Resolved{Provider: "keyed", BaseURL: "https://keyed.example/v1", APIKey: "flag-key", Model: file.Providers[2].Models[0], Listed: true}},
		{"local base URL from flag needs no key", file, Selection{Provider: "keyless", Model: "m", BaseURL: "http://localhost:8080/v1"}, nil,
			Resolved{Provider: "keyless", BaseURL: "http://localhost:8080/v1", Model: unlisted("m")}},
		{"private network needs no key", file, Selection{Provider: "keyless", Model: "m", BaseURL: "http://192.168.1.20:8080/v1"}, nil,
			Resolved{Provider: "keyless", BaseURL: "http://192.168.1.20:8080/v1", Model: unlisted("m")}},
		{"base URL from flag fills a provider without one", file, Selection{Provider: "nourl", Model: "m", BaseURL: "https://x.example/v1"}, nil,
			Resolved{Provider: "nourl", BaseURL: "https://x.example/v1", APIKey: "k", Model: unlisted("m")}},
		{"max tokens flag", file, Selection{MaxTokens: 2048}, nil,
			Resolved{Provider: "local", BaseURL: "http://127.0.0.1:8080/v1", Model: withMaxTokens(local.Models[0], 2048), Listed: true}},

		{"openai from OPENAI_API_KEY alone", empty, Selection{Model: "gpt-4o"}, envOf(EnvOpenAIAPIKey, "sk-1"),
			Resolved{Provider: "openai", BaseURL: DefaultOpenAIBaseURL, APIKey: "sk-1", Model: unlisted("gpt-4o")}},
		{"openai from OPENAI_BASE_URL alone, local", empty, Selection{Model: "m"}, envOf(EnvOpenAIBaseURL, " http://127.0.0.1:8081/v1/ "),
			Resolved{Provider: "openai", BaseURL: "http://127.0.0.1:8081/v1", Model: unlisted("m")}},
		{"openai shorthand", empty, Selection{Model: "openai/gpt-4o"}, envOf(EnvOpenAIAPIKey, "sk-1"),
			Resolved{Provider: "openai", BaseURL: DefaultOpenAIBaseURL, APIKey: "sk-1", Model: unlisted("gpt-4o")}},
		{"openai in file wins over env", file, Selection{Provider: "openai"},
			envOf(EnvOpenAIBaseURL, "https://ignored.example/v1", "MY_OPENAI_KEY", "mine", EnvOpenAIAPIKey, "sk-ignored"),
			Resolved{Provider: "openai", BaseURL: "https://proxy.example/v1", APIKey: "mine", Model: openaiFile.Models[0], Listed: true}},
		{"openai env fills a missing key", file, Selection{Provider: "openai"}, envOf(EnvOpenAIAPIKey, "sk-1"),
			Resolved{Provider: "openai", BaseURL: "https://proxy.example/v1", APIKey: "sk-1", Model: openaiFile.Models[0], Listed: true}},
		{"openai env fills a missing base URL", mustParse(t, "providers:\n  openai:\n    api_key: fk\n"),
			Selection{Provider: "openai", Model: "m"}, envOf(EnvOpenAIBaseURL, "https://env.example/v1", EnvOpenAIAPIKey, "sk-1"),
			Resolved{Provider: "openai", BaseURL: "https://env.example/v1", APIKey: "fk", Model: unlisted("m")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.cfg, tt.sel, tt.env)
			requireNoError(t, err)
			if got.API != "openai" {
				t.Errorf("api %q: every provider here speaks openai", got.API)
			}
			got.BaseURLFrom, got.APIKeyFrom, got.API = "", "", "" // TestBaseURLFrom, TestAPIKeyFrom
			requireEqual(t, got, tt.want)
		})
	}
}

func TestResolveErrors(t *testing.T) {
	file := loadTestdata(t, resolveYML)
	empty := Config{Path: "/home/x/.troupe/models.yml"}
	const at = "testdata/resolve.yml"

	tests := []struct {
		name string
		cfg  Config
		sel  Selection
		env  func(string) string
		kind error
		want string
	}{
		{"nothing selected", empty, Selection{}, nil, ErrIncomplete,
			"no provider selected: pass --provider NAME (and --model ID), set default.provider in /home/x/.troupe/models.yml (`troupe init` writes a commented one), or set OPENAI_BASE_URL (an OpenAI-compatible server, e.g. llama-server's http://127.0.0.1:8080/v1) or OPENAI_API_KEY"},
		{"nothing selected, config built in code", Config{}, Selection{}, nil, ErrIncomplete,
			"no provider selected: pass --provider NAME (and --model ID), set default.provider in models.yml (`troupe init` writes a commented one), or set OPENAI_BASE_URL (an OpenAI-compatible server, e.g. llama-server's http://127.0.0.1:8080/v1) or OPENAI_API_KEY"},
		{"unknown provider", file, Selection{Provider: "foo"}, nil, ErrUnknownProvider,
			`provider "foo" not found in ` + at + `: known providers: local, router, keyed, keyless, nourl, openai, anthropic, google, bedrock, vertex`},
		{"unknown provider, empty file", empty, Selection{Provider: "foo"}, nil, ErrUnknownProvider,
			`provider "foo" not found in /home/x/.troupe/models.yml: known providers: openai, anthropic, google, bedrock, vertex`},
		{"openai-compatible server without a model", empty, Selection{}, envOf(EnvOpenAIBaseURL, "http://127.0.0.1:8080/v1"), ErrIncomplete,
			`no model selected for provider "openai": pass --model ID, set default.model in /home/x/.troupe/models.yml, or list models under providers.openai`},
		{"openai without a key", empty, Selection{Provider: "openai", Model: "gpt-4o"}, nil, ErrIncomplete,
			`OPENAI_API_KEY not set: provider "openai" needs an API key from $OPENAI_API_KEY, api_key_env under providers.openai in /home/x/.troupe/models.yml, or --api-key`},
		{"openai remote base URL without a key", empty, Selection{Model: "m"}, envOf(EnvOpenAIBaseURL, "https://example.com/v1"), ErrIncomplete,
			`OPENAI_API_KEY not set: provider "openai" needs an API key from $OPENAI_API_KEY, api_key_env under providers.openai in /home/x/.troupe/models.yml, or --api-key`},
		{"openai api_key_env unset", file, Selection{Provider: "openai"}, nil, ErrIncomplete,
			`provider "openai" needs an API key: set MY_OPENAI_KEY (named by api_key_env under providers.openai in ` + at + `) or OPENAI_API_KEY`},
		{"api_key_env unset", file, Selection{Provider: "router"}, envOf("ROUTER_KEY", "  "), ErrIncomplete,
			`provider "router" needs an API key: set ROUTER_KEY (named by api_key_env under providers.router in ` + at + `), or pass --api-key`},
		{"no key configured", file, Selection{Provider: "keyless", Model: "m"}, nil, ErrIncomplete,
			`provider "keyless" needs an API key: set api_key_env (or api_key) under providers.keyless in ` + at + `, or pass --api-key`},
		{"no base URL", file, Selection{Provider: "nourl", Model: "m"}, nil, ErrIncomplete,
			`provider "nourl" has no base URL: set base_url under providers.nourl in ` + at + `, or pass --base-url`},
		{"bad --base-url", file, Selection{BaseURL: "localhost:8080"}, nil, ErrIncomplete,
			`provider "local": base URL from --base-url: "localhost:8080" is not an http(s) URL like http://127.0.0.1:8080/v1`},
		{"bad OPENAI_BASE_URL", empty, Selection{Model: "m"}, envOf(EnvOpenAIBaseURL, "ftp://x"), ErrIncomplete,
			`provider "openai": base URL from OPENAI_BASE_URL: "ftp://x" is not an http(s) URL like http://127.0.0.1:8080/v1`},
		{"bad base_url in code-built config", Config{Providers: []Provider{{Name: "a", BaseURL: "nope"}}}, Selection{Provider: "a", Model: "m"}, nil, ErrIncomplete,
			`provider "a": base URL from providers.a.base_url in models.yml: "nope" is not an http(s) URL like http://127.0.0.1:8080/v1`},
		{"negative max tokens", file, Selection{MaxTokens: -1}, nil, ErrIncomplete,
			"max tokens -1: must be positive, or 0 for the model's own"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Resolve(tt.cfg, tt.sel, tt.env)
			requireError(t, err, tt.want)
			if !errors.Is(err, tt.kind) {
				t.Fatalf("error %q is not %v", err, tt.kind)
			}
		})
	}
}

func TestResolveAmbiguousModel(t *testing.T) {
	cfg := mustParse(t, "default: {provider: c}\nproviders:\n  a:\n    models: [{id: m}]\n  b:\n    models: [{id: m}]\n  c: {}\n")
	_, err := Resolve(cfg, Selection{Model: "m"}, nil)
	requireError(t, err, `model "m" is listed under providers a and b in p: pass --provider NAME to choose`)
}

func TestResolveHeadersAreCopied(t *testing.T) {
	cfg := loadTestdata(t, resolveYML)
	got, err := Resolve(cfg, Selection{Provider: "router"}, envOf("ROUTER_KEY", "rk"))
	requireNoError(t, err)
	got.Headers["X-Title"] = "changed"
	requireEqual(t, cfg.Providers[1].Headers["X-Title"], "troupe")
}

func TestResolveCodeBuiltModelGetsDefaults(t *testing.T) {
	cfg := Config{Providers: []Provider{{Name: "a", BaseURL: "http://127.0.0.1:1", Models: []Model{{ID: "m", Thinking: true}}}}}
	got, err := Resolve(cfg, Selection{Provider: "a"}, nil)
	requireNoError(t, err)
	requireEqual(t, got.Model, Model{ID: "m", Name: "m", ContextWindow: DefaultContextWindow,
		ToolStyle: ToolStyleAuto, Thinking: true, MaxThinking: ThinkingHigh})
	requireEqual(t, got.Listed, true)
}

func TestIsLocal(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"http://127.0.0.1:8080/v1", true},
		{"http://127.1.2.3/v1", true},
		{"http://localhost:8080/v1", true},
		{"http://LOCALHOST/v1", true},
		{"http://llama.localhost/v1", true},
		{"http://[::1]:8080/v1", true},
		{"http://0.0.0.0:8080/v1", true},
		{"http://10.0.0.5:8080/v1", true},
		{"http://192.168.1.20/v1", true},
		{"http://172.16.0.1/v1", true},
		{"http://172.32.0.1/v1", false},
		{"http://8.8.8.8/v1", false},
		{"https://api.openai.com/v1", false},
		{"https://localhost.example.com/v1", false},
		{"://bad", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			requireEqual(t, isLocal(tt.url), tt.want)
		})
	}
}

func mustParse(t *testing.T, yml string) Config {
	t.Helper()
	cfg, err := Parse([]byte(yml), "p")
	requireNoError(t, err)
	return cfg
}

func withMaxTokens(m Model, n int) Model {
	m.MaxOutputTokens = n
	return m
}

// Resolved says where its base URL came from: what the hint of a server
// that cannot be reached names.
func TestBaseURLFrom(t *testing.T) {
	file := mustParse(t, "providers:\n  local:\n    base_url: http://127.0.0.1:8080/v1\n  openai:\n    api_key: k\n")
	for _, tt := range []struct {
		sel  Selection
		env  func(string) string
		want string
	}{
		{Selection{Provider: "local", Model: "m"}, nil, "providers.local.base_url in p"}, // mustParse names the file p
		{Selection{Provider: "local", Model: "m", BaseURL: "http://127.0.0.1:9/v1"}, nil, "--base-url"},
		{Selection{Provider: "openai", Model: "m"}, envOf(EnvOpenAIBaseURL, "http://127.0.0.1:9/v1"), EnvOpenAIBaseURL},
	} {
		got, err := Resolve(file, tt.sel, tt.env)
		requireNoError(t, err)
		requireEqual(t, got.BaseURLFrom, tt.want)
	}
}
