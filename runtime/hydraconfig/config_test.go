package hydraconfig_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/troupehq/troupe/runtime/hydraconfig"
	"github.com/troupehq/troupe/testkit"
)

// Each config.json gives the digest Hydra's own client computed over it
// (testdata/digests.json, recorded from hydra-acp 0.1.161).
func TestDigestIsHydras(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "digests.json"))
	testkit.NoError(t, err)
	var rec struct {
		Cases []struct {
			Config *string
			Digest string
		}
	}
	testkit.NoError(t, json.Unmarshal(b, &rec))
	if len(rec.Cases) < 5 {
		t.Fatalf("%d recorded cases", len(rec.Cases))
	}
	for _, c := range rec.Cases {
		home := t.TempDir()
		if c.Config != nil {
			testkit.NoError(t, os.WriteFile(filepath.Join(home, hydraconfig.File), []byte(*c.Config), 0o600))
		}
		cfg, err := hydraconfig.Read(home)
		testkit.NoError(t, err)
		testkit.Equal(t, cfg.Present, c.Config != nil)
		if got := cfg.Digest(); got != c.Digest {
			t.Errorf("config %v: digest %s, Hydra's %s", c.Config, got, c.Digest)
		}
	}
}

func TestListenAndBadConfigs(t *testing.T) {
	home := t.TempDir()
	cfg, err := hydraconfig.Read(home)
	testkit.NoError(t, err)
	testkit.Equal(t, cfg.Listen(), "127.0.0.1:55514")
	testkit.NoError(t, os.WriteFile(filepath.Join(home, hydraconfig.File), []byte(`{"daemon":{"host":"::1","port":4000}}`), 0o600))
	cfg, err = hydraconfig.Read(home)
	testkit.NoError(t, err)
	testkit.Equal(t, cfg.Listen(), "[::1]:4000")
	for _, bad := range []string{`{"daemon":`, `{"daemon":{"port":0}}`, `{"daemon":{"port":"x"}}`} {
		testkit.NoError(t, os.WriteFile(filepath.Join(home, hydraconfig.File), []byte(bad), 0o600))
		if _, err := hydraconfig.Read(home); err == nil {
			t.Errorf("config %s was accepted", bad)
		}
	}
}
