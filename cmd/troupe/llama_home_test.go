package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// llamaHome is a fresh home holding the tiny model and one config per
// name, each running the fake llama-server with extra flags.
func llamaHome(t *testing.T, names []string, extra ...string) string {
	t.Helper()
	home := t.TempDir()
	model, err := os.ReadFile("../../runtime/gguf/testdata/tiny-llama-random.gguf")
	testkit.NoError(t, err)
	modelPath := filepath.Join(home, "models", "aladar", "tiny", "tiny.gguf")
	testkit.NoError(t, os.MkdirAll(filepath.Dir(modelPath), 0o755))
	testkit.NoError(t, os.WriteFile(modelPath, model, 0o644))
	testkit.NoError(t, os.MkdirAll(filepath.Join(home, "configs"), 0o755))
	args := ""
	for _, a := range extra {
		args += ", " + a
	}
	cfg := "model_path: " + modelPath + "\nctx: 2048\nn_slots: 1\nserver_path: " + testkit.BuildFakeLlamaServer(t) +
		"\nextra_args: [" + args[min(2, len(args)):] + "]\n"
	for _, name := range names {
		testkit.NoError(t, os.WriteFile(filepath.Join(home, "configs", name+".yml"), []byte(cfg), 0o644))
	}
	return home
}
