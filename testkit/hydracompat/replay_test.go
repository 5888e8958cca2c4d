package hydracompat

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// TestReplayHydraClients pins what Hydra's own clients send and read
// (testdata/*.jsonl, recorded by make hydra-compat UPDATE=1 from the rows
// that pass): each recording's client side is played against a fresh
// troupe daemon and the daemon must answer as it did.
func TestReplayHydraClients(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	testkit.NoError(t, err)
	if len(files) == 0 {
		t.Fatal("no recordings in testdata: make hydra-compat UPDATE=1 writes them")
	}
	troupe, fakeLlama := testkit.BuildTroupe(t), testkit.BuildFakeLlamaServer(t)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".jsonl"), func(t *testing.T) {
			recs, err := ReadFile(f)
			testkit.NoError(t, err)
			Replay(t, recs, troupe, fakeLlama)
		})
	}
}
