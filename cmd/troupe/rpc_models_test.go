package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// The RPC mode answers model questions from the engine's catalog (the
// models.yml the engine loaded): listing, cycling, and thinking levels
// clamped to the model.
func TestRPCModelsFromTheEngine(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home := t.TempDir()
	yml := `default: {provider: local, model: small}
providers:
  local:
    base_url: http://127.0.0.1:9/v1
    models:
      - {id: small, name: Small, context_window: 4096, cost: {input: 1, output: 2}}
      - {id: big, context_window: 65536, thinking: true}
`
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "models.yml"), []byte(yml), 0o644))
	p := testkit.Start(t, bin, []string{"OPENAI_BASE_URL=", "OPENAI_API_KEY="},
		"--mode", "rpc", "--home", home, "--cwd", t.TempDir(), "--thinking", "high")
	ask := func(cmd string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(p.Stdin, cmd+"\n"); err != nil {
			t.Fatal(err)
		}
		var sent struct{ ID string }
		testkit.NoError(t, json.Unmarshal([]byte(cmd), &sent))
		for {
			line, ok := p.ReadLine(20 * time.Second)
			if !ok {
				t.Fatalf("no answer to %s", cmd)
			}
			var m map[string]any
			testkit.NoError(t, json.Unmarshal([]byte(line), &m))
			if m["type"] == "response" && m["id"] == sent.ID {
				if m["success"] != true {
					t.Fatalf("%s failed: %s", cmd, line)
				}
				data, _ := m["data"].(map[string]any)
				return data
			}
		}
	}
	str := func(v any) string { b, _ := json.Marshal(v); return string(b) }

	models := ask(`{"id":"1","type":"get_available_models"}`)["models"].([]any)
	testkit.Equal(t, len(models), 2)
	small := models[0].(map[string]any)
	testkit.Equal(t, small["name"], any("Small"))
	testkit.Equal(t, small["baseUrl"], any("http://127.0.0.1:9/v1"))
	testkit.Equal(t, str(small["cost"]), `{"cacheRead":0,"cacheWrite":0,"input":1,"output":2}`)
	testkit.Equal(t, models[1].(map[string]any)["id"], any("big"))

	st := ask(`{"id":"2","type":"get_state"}`)
	testkit.Equal(t, st["model"].(map[string]any)["id"], any("small"))
	testkit.Equal(t, st["thinkingLevel"], any("off")) // small has no thinking

	cycled := ask(`{"id":"3","type":"cycle_model"}`)
	testkit.Equal(t, cycled["model"].(map[string]any)["id"], any("big"))
	testkit.Equal(t, cycled["thinkingLevel"], any("high"))
	testkit.Equal(t, ask(`{"id":"4","type":"cycle_thinking_level"}`)["level"], any("off"))
	ask(`{"id":"5","type":"set_thinking_level","level":"xhigh"}`)
	testkit.Equal(t, ask(`{"id":"6","type":"get_state"}`)["thinkingLevel"], any("high"))

	testkit.NoError(t, p.Stdin.Close())
	testkit.Equal(t, p.Wait(t, 20*time.Second), 0)
}
