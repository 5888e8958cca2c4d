package hydracompat

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// TestReplayHydraClients pins what Hydra's own clients send and read
// (testdata/*.jsonl and, for a large one, *.jsonl.gz, recorded by make hydra-compat UPDATE=1 from the rows
// that pass): each recording's client side is played against a fresh
// troupe daemon and the daemon must answer as it did.
func TestReplayHydraClients(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	testkit.NoError(t, err)
	zipped, err := filepath.Glob(filepath.Join("testdata", "*.jsonl.gz"))
	testkit.NoError(t, err)
	files = append(files, zipped...)
	if len(files) == 0 {
		t.Fatal("no recordings in testdata: make hydra-compat UPDATE=1 writes them")
	}
	troupe, fakeLlama := testkit.BuildTroupe(t), testkit.BuildFakeLlamaServer(t)
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".gz"), ".jsonl")
		t.Run(name, func(t *testing.T) {
			recs, err := ReadFile(f)
			testkit.NoError(t, err)
			Replay(t, recs, troupe, fakeLlama)
		})
	}
}
