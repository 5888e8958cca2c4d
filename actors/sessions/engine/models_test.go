package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/modelconfig"
	"github.com/troupehq/troupe/testkit"
)

func catalogOf(t *testing.T, yml string, sel modelconfig.Selection, vars map[string]string) sessions.Models {
	t.Helper()
	home := t.TempDir()
	if yml != "" {
		testkit.NoError(t, os.WriteFile(filepath.Join(home, "models.yml"), []byte(yml), 0o644))
	}
	e, err := engine.New(engine.Options{Home: home, Env: env(vars), Selection: sel})
	testkit.NoError(t, err)
	return e.Models()
}

const twoModels = `default: {provider: local, model: small}
providers:
  local:
    base_url: http://127.0.0.1:9/v1
    models:
      - {id: small, name: Small, context_window: 4096, max_output_tokens: 512, cost: {input: 1, output: 2, cache_read: 0.5}}
      - {id: big, context_window: 65536, thinking: true}
`

// The catalog answers from models.yml as the engine resolves it: listing,
// description, thinking levels and prices.
func TestModelsCatalog(t *testing.T) {
	m := catalogOf(t, twoModels, modelconfig.Selection{}, nil)
	p, id := m.Default()
	testkit.Equal(t, p+"/"+id, "local/small")

	var listed []string
	for _, x := range m.List() {
		listed = append(listed, x.Provider+"/"+x.ID)
	}
	testkit.DeepEqual(t, listed, []string{"local/small", "local/big"})

	small, err := m.Model("local", "small")
	testkit.NoError(t, err)
	testkit.Equal(t, small, sessions.Model{Provider: "local", API: "openai", ID: "small", Name: "Small", BaseURL: "http://127.0.0.1:9/v1",
		ContextWindow: 4096, MaxOutputTokens: 512, Pricing: sessions.Pricing{Input: 1, Output: 2, CacheRead: 0.5}})
	big, err := m.Model("local", "big")
	testkit.NoError(t, err)
	testkit.Equal(t, big.Name, "big")
	testkit.Equal(t, big.Thinking, true)
	_, err = m.Model("nope", "x")
	if err == nil {
		t.Fatal("an unknown provider resolved")
	}

	cost, err := m.Cost("local", "small", event.Usage{Input: 1_000_000, Output: 500_000, CacheRead: 2_000_000})
	testkit.NoError(t, err)
	testkit.Equal(t, cost, sessions.Cost{Input: 1, Output: 1, CacheRead: 1, Total: 3})

	for _, c := range []struct {
		model, level, clamped, next string
		cycles                      bool
	}{
		{"big", "xhigh", "high", "off", true},
		{"big", "low", "low", "medium", true},
		{"big", "nonsense", "off", "minimal", true},
		{"small", "high", "off", "off", false},
		{"unknown", "high", "off", "off", false}, // does not resolve: no thinking
	} {
		provider := "local"
		if c.model == "unknown" {
			provider = "nope"
		}
		testkit.Equal(t, m.ClampThinking(provider, c.model, c.level), c.clamped)
		next, ok := m.NextThinking(provider, c.model, c.level)
		testkit.Equal(t, next+" "+map[bool]string{true: "cycles", false: "stays"}[ok], c.next+" "+map[bool]string{true: "cycles", false: "stays"}[c.cycles])
	}
}

// A model chosen by flag that models.yml does not list comes first; the
// flags' endpoint and key apply to its provider only.
func TestModelsCatalogFlagModelFirst(t *testing.T) {
	m := catalogOf(t, twoModels, modelconfig.Selection{Provider: "openai", Model: "tiny", BaseURL: "http://127.0.0.1:7/v1"}, nil)
	var listed []string
	for _, x := range m.List() {
		listed = append(listed, x.Provider+"/"+x.ID)
	}
	testkit.DeepEqual(t, listed, []string{"openai/tiny", "local/small", "local/big"})
	tiny, err := m.Model("openai", "tiny")
	testkit.NoError(t, err)
	testkit.Equal(t, tiny.BaseURL, "http://127.0.0.1:7/v1")
	testkit.Equal(t, tiny.ContextWindow, modelconfig.DefaultContextWindow)
}

// Without models.yml or anything to resolve, the catalog knows nothing.
func TestModelsCatalogEmpty(t *testing.T) {
	m := catalogOf(t, "", modelconfig.Selection{}, nil)
	p, id := m.Default()
	testkit.Equal(t, p+id, "")
	testkit.Equal(t, len(m.List()), 0)
	if _, err := m.Cost("openai", "x", event.Usage{}); err == nil {
		t.Fatal("priced a model that does not resolve")
	}
}
