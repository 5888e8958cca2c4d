package modelconfig

import "testing"

func TestModels(t *testing.T) {
	cfg := loadTestdata(t, "testdata/models.yml")
	var got []string
	for _, r := range cfg.Models() {
		got = append(got, r.Provider+" "+r.Model.ID)
	}
	requireEqual(t, got, []string{
		"local qwen3-coder-30b",
		"openrouter anthropic/claude-sonnet-4",
		"openai gpt-5-codex",
	})
	requireEqual(t, Config{}.Models(), nil)
}

func TestNextModel(t *testing.T) {
	three := loadTestdata(t, "testdata/models.yml")
	one := mustParse(t, "providers:\n  a:\n    models: [{id: m}]\n")

	tests := []struct {
		name         string
		cfg          Config
		provider, id string
		want         string
		ok           bool
	}{
		{"next in file order", three, "local", "qwen3-coder-30b", "openrouter anthropic/claude-sonnet-4", true},
		{"across providers", three, "openrouter", "anthropic/claude-sonnet-4", "openai gpt-5-codex", true},
		{"wraps around", three, "openai", "gpt-5-codex", "local qwen3-coder-30b", true},
		{"unlisted current goes to the first", three, "openai", "gpt-4o", "local qwen3-coder-30b", true},
		{"same id under another provider is not current", three, "local", "gpt-5-codex", "local qwen3-coder-30b", true},
		{"only the current one", one, "a", "m", "", false},
		{"one listed, current unlisted", one, "openai", "gpt-4o", "a m", true},
		{"nothing listed", Config{}, "openai", "gpt-4o", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, ok := tt.cfg.NextModel(tt.provider, tt.id)
			requireEqual(t, ok, tt.ok)
			if !ok {
				return
			}
			requireEqual(t, next.Provider+" "+next.Model.ID, tt.want)
		})
	}
}
