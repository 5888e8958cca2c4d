package modelconfig

import (
	"strings"
	"testing"
)

// The template loads, lists its local model, and leaves the choice of
// model as it was: with only OPENAI_BASE_URL set, openai is still chosen.
func TestTemplateLoads(t *testing.T) {
	cfg, err := Parse(Template, "models.yml")
	requireNoError(t, err)
	r, err := Resolve(cfg, Selection{Provider: "local"}, nil)
	requireNoError(t, err)
	requireEqual(t, r.BaseURL+" "+r.Model.ID, "http://127.0.0.1:8080/v1 local-model")
	r, err = Resolve(cfg, Selection{Model: "qwen"}, func(k string) string {
		if k == EnvOpenAIBaseURL {
			return "http://127.0.0.1:9999/v1"
		}
		return ""
	})
	requireNoError(t, err)
	requireEqual(t, r.Provider, "openai")
	// Every commented-out provider is valid once uncommented.
	var lines []string
	for _, l := range strings.Split(string(Template), "\n") {
		if rest, ok := strings.CutPrefix(l, "  # "); ok && !strings.HasPrefix(rest, " ") && strings.HasSuffix(rest, ":") {
			lines = append(lines, "  "+rest) // a provider's name
			continue
		}
		if rest, ok := strings.CutPrefix(l, "  #   "); ok {
			lines = append(lines, "    "+rest)
			continue
		}
		lines = append(lines, l)
	}
	all, err := Parse([]byte(strings.Join(lines, "\n")), "models.yml uncommented")
	requireNoError(t, err)
	for _, name := range []string{"local", "lab", "openrouter"} {
		if !all.known(name) {
			t.Fatalf("uncommented template has no provider %s: %v", name, all.providerNames())
		}
	}
}
