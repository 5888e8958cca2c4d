package hugind_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/transcript"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/transcripts/*.txtar")

// The end-to-end suite: each testdata/transcripts/*.txtar drives the real
// troupe stdio on a home holding the tiny model as aladar/tiny, with the
// fake llama-server first on PATH as llama-server. go test -run
// TestTranscripts -update rewrites the transcripts.
func TestTranscripts(t *testing.T) {
	model, err := os.ReadFile("../../runtime/gguf/testdata/tiny-llama-random.gguf")
	if err != nil {
		t.Fatal(err)
	}
	// The kit starts troupe with the test's environment, not the script's:
	// the fake goes first on this process's PATH, for this test alone (its
	// subtests run in parallel, so t.Setenv is not allowed).
	bin := t.TempDir()
	if err := os.Symlink(testkit.BuildFakeLlamaServer(t), filepath.Join(bin, "llama-server")); err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	os.Setenv("PATH", bin+string(os.PathListSeparator)+path)
	t.Cleanup(func() { os.Setenv("PATH", path) })
	transcript.Run(t, transcript.Params{Dir: "testdata/transcripts", Update: *update, Setup: func(env *testscript.Env) error {
		dir := filepath.Join(env.Getenv("TROUPE_HOME"), "models", "aladar", "tiny")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "tiny.gguf"), model, 0o644); err != nil {
			return err
		}
		return copyTree(filepath.Join("..", "..", "testkit", "agents"), filepath.Join(env.WorkDir, "agents"))
	}})
}

// copyTree copies the example agents into a script's $WORK.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}
