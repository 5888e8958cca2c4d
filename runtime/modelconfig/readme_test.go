package modelconfig

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEModelsYMLExamplesLoad keeps the models.yml examples in the
// repository's README loadable: each ```yaml block that starts with
// "# models.yml" parses, and its default resolves to a listed model
// (an API key variable set, as its user would have it).
func TestREADMEModelsYMLExamplesLoad(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	requireNoError(t, err)
	var blocks []string
	for _, part := range strings.Split(string(readme), "```yaml\n")[1:] {
		body, _, ok := strings.Cut(part, "```")
		if ok && strings.HasPrefix(body, "# models.yml") {
			blocks = append(blocks, body)
		}
	}
	if len(blocks) != 3 {
		t.Fatalf("README has %d models.yml examples, want 3 (local llama-server, OpenAI-compatible, hosted)", len(blocks))
	}
	env := func(k string) string {
		if strings.HasSuffix(k, "_API_KEY") {
			return "key-from-" + k
		}
		return ""
	}
	for _, b := range blocks {
		name, _, _ := strings.Cut(b, "\n")
		cfg, err := Parse([]byte(b), "README.md "+name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := Resolve(cfg, Selection{}, env)
		if err != nil {
			t.Fatalf("%s: resolve the default: %v", name, err)
		}
		if !r.Listed || r.BaseURL == "" {
			t.Fatalf("%s: resolved %+v", name, r)
		}
	}
}
