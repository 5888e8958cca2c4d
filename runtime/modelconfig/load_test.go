package modelconfig

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestLoadExample(t *testing.T) {
	cfg, err := Load("testdata/models.yml")
	requireNoError(t, err)

	requireEqual(t, cfg.Path, "testdata/models.yml")
	requireEqual(t, cfg.Default, Default{Provider: "local", Model: "qwen3-coder-30b"})
	var names []string
	for _, p := range cfg.Providers {
		names = append(names, p.Name)
	}
	requireEqual(t, names, []string{"local", "openrouter", "openai", "claude-work", "bedrock"})
	requireEqual(t, cfg.Providers[3].API, "anthropic")
	requireEqual(t, cfg.Providers[4].Region, "eu-west-1")

	router := cfg.Providers[1]
	requireEqual(t, router.APIKeyEnv, "OPENROUTER_API_KEY")
	requireEqual(t, router.Headers, map[string]string{"X-Title": "troupe"})
	requireEqual(t, router.Models[0], Model{
		ID: "anthropic/claude-sonnet-4", Name: "Claude Sonnet 4",
		ContextWindow: 200000, MaxOutputTokens: 16384,
		ToolStyle: ToolStyleAuto, Thinking: true, MaxThinking: ThinkingHigh,
		Pricing: Pricing{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	})
	requireEqual(t, cfg.Providers[0].Models[0].ToolStyle, ToolStyleText)
	requireEqual(t, cfg.Providers[2].Models[0], Model{
		ID: "gpt-5-codex", Name: "gpt-5-codex", API: "openai-responses", ContextWindow: DefaultContextWindow,
		ToolStyle: ToolStyleAuto, Thinking: true, MaxThinking: ThinkingXHigh,
	})
}

func TestLoadEmpty(t *testing.T) {
	for _, path := range []string{
		"testdata/does-not-exist.yml",
		"testdata/empty.yml",
		"testdata/comments-only.yml",
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cfg, err := Load(path)
			requireNoError(t, err)
			requireEqual(t, cfg, Config{Path: path})
		})
	}
}

func TestLoadTypoNamesLine(t *testing.T) {
	_, err := Load("testdata/typo.yml")
	requireError(t, err, "testdata/typo.yml: line 6: unknown key contxt_window")
}

func TestLoadUnreadable(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("file permissions do not stop this user from reading")
	}
	path := filepath.Join(t.TempDir(), FileName)
	requireNoError(t, os.WriteFile(path, []byte("providers: {}\n"), 0o000))
	_, err := Load(path)
	requireError(t, err, "read models config: open "+path+": permission denied")
}

func TestLoadDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir)
	requireError(t, err, "read models config: read "+dir+": is a directory")
}

func TestParseErrors(t *testing.T) {
	const path = "/home/x/.troupe/models.yml"
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{"unknown top-level key", "defaults: {}\n",
			path + ": line 1: unknown key defaults"},
		{"unknown provider key", "providers:\n  a:\n    baseurl: http://x\n",
			path + ": line 3: unknown key baseurl"},
		{"unknown cost key", "providers:\n  a:\n    models:\n      - id: m\n        cost: {inptu: 1}\n",
			path + ": line 5: unknown key inptu"},
		{"several problems at once", "providers:\n  a:\n    models:\n      - id: m\n        tool_style: json\n        thinkin: true\n",
			path + `: line 5: tool_style "json": want native, text or auto; line 6: unknown key thinkin`},
		{"bad thinking level", "providers:\n  a:\n    models:\n      - {id: m, thinking: true, max_thinking: max}\n",
			path + `: line 4: thinking level "max": want off, minimal, low, medium, high or xhigh`},
		{"wrong type", "providers:\n  a:\n    models:\n      - {id: m, context_window: big}\n",
			path + ": line 4: cannot unmarshal !!str `big` into int"},
		{"providers as a list", "providers:\n  - name: a\n",
			path + ": line 2: cannot unmarshal !!seq into map[string]modelconfig.Provider"},
		{"duplicate provider", "providers:\n  a: {}\n  a: {}\n",
			path + `: line 3: mapping key "a" already defined at line 2`},
		{"not yaml", "providers: [\n",
			path + ": line 1: did not find expected node content"},
		{"api_key and api_key_env", "providers:\n  a: {api_key: k, api_key_env: K}\n",
			path + ": providers.a: set api_key or api_key_env, not both"},
		{"provider name with slash", "providers:\n  a/b: {}\n",
			path + `: provider name "a/b": must be non-empty and without '/', which separates provider/model`},
		{"bad base_url", "providers:\n  a: {base_url: 127.0.0.1:8080}\n",
			path + `: providers.a.base_url: "127.0.0.1:8080" is not an http(s) URL like http://127.0.0.1:8080/v1`},
		{"empty header name", "providers:\n  a:\n    headers: {' ': x}\n",
			path + ": providers.a.headers: empty header name"},
		{"empty model id", "providers:\n  a:\n    models:\n      - name: nameless\n",
			path + ": providers.a.models[0]: id is empty"},
		{"duplicate model id", "providers:\n  a:\n    models:\n      - id: m\n      - id: n\n      - id: m\n",
			path + `: providers.a.models[2]: id "m" already listed at providers.a.models[0]`},
		{"negative context window", "providers:\n  a:\n    models:\n      - {id: m, context_window: -1}\n",
			path + ": providers.a.models[0]: context_window must not be negative"},
		{"negative max output", "providers:\n  a:\n    models:\n      - {id: m, max_output_tokens: -1}\n",
			path + ": providers.a.models[0]: max_output_tokens must not be negative"},
		{"output beyond window", "providers:\n  a:\n    models:\n      - {id: m, context_window: 4096, max_output_tokens: 8192}\n",
			path + ": providers.a.models[0]: max_output_tokens 8192 exceeds context_window 4096"},
		{"max_thinking without thinking", "providers:\n  a:\n    models:\n      - {id: m, max_thinking: high}\n",
			path + ": providers.a.models[0]: max_thinking needs thinking: true"},
		{"max_thinking off", "providers:\n  a:\n    models:\n      - {id: m, thinking: true, max_thinking: off}\n",
			path + ": providers.a.models[0]: max_thinking off contradicts thinking: true; set thinking: false instead"},
		{"negative cost", "providers:\n  a:\n    models:\n      - {id: m, cost: {cache_write: -1}}\n",
			path + ": providers.a.models[0]: cost.cache_write must not be negative"},
		{"unknown default provider", "default: {provider: b}\nproviders:\n  a: {}\n",
			path + `: default.provider "b" is not a provider: known providers: a, openai, anthropic, google, bedrock, vertex`},
		{"default model without provider", "default: {model: m}\n",
			path + `: default.model "m" has no provider: set default.provider or write it as provider/model`},
		{"default model with unknown prefix", "default: {model: x/m}\n",
			path + `: default.model "x/m" has no provider: set default.provider or write it as provider/model`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), path)
			requireError(t, err, tt.want)
		})
	}
}

func TestParseDefaults(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want Config
	}{
		{"shorthand default model", "default: {model: a/m}\nproviders:\n  a: {}\n",
			Config{Path: "p", Default: Default{Provider: "a", Model: "m"}, Providers: []Provider{{Name: "a"}}}},
		{"openai shorthand without file entry", "default: {model: openai/gpt-4o}\n",
			Config{Path: "p", Default: Default{Provider: "openai", Model: "gpt-4o"}}},
		{"model fields filled", "providers:\n  a:\n    models:\n      - id: m\n",
			Config{Path: "p", Providers: []Provider{{Name: "a", Models: []Model{{
				ID: "m", Name: "m", ContextWindow: DefaultContextWindow, ToolStyle: ToolStyleAuto, MaxThinking: ThinkingOff,
			}}}}}},
		{"thinking defaults to high", "providers:\n  a:\n    models:\n      - {id: m, thinking: true}\n",
			Config{Path: "p", Providers: []Provider{{Name: "a", Models: []Model{{
				ID: "m", Name: "m", ContextWindow: DefaultContextWindow, ToolStyle: ToolStyleAuto, Thinking: true, MaxThinking: ThinkingHigh,
			}}}}}},
		{"provider order kept", "providers:\n  zeta: {}\n  alpha: {}\n  mid: {}\n",
			Config{Path: "p", Providers: []Provider{{Name: "zeta"}, {Name: "alpha"}, {Name: "mid"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.yaml), "p")
			requireNoError(t, err)
			requireEqual(t, cfg, tt.want)
		})
	}
}
