package datahome

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tightenHome takes group and other permissions off everything under the
// home, keeps the owner's (an executable stays one), leaves what a
// symbolic link names alone, and warns once, only when it changed
// something.
func TestTightenHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	outside := filepath.Join(t.TempDir(), "outside")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(home, "agents", "a"), 0o755))
	must(os.WriteFile(filepath.Join(home, "troupe.db"), nil, 0o644))
	must(os.WriteFile(filepath.Join(home, "agents", "a", "run"), nil, 0o755))
	must(os.WriteFile(outside, nil, 0o644))
	must(os.Symlink(outside, filepath.Join(home, "link")))
	for _, p := range []string{home, filepath.Join(home, "agents"), filepath.Join(home, "agents", "a")} {
		must(os.Chmod(p, 0o755))
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	tightenHome(home, log)
	want := map[string]os.FileMode{home: 0o700, filepath.Join(home, "agents", "a"): 0o700,
		filepath.Join(home, "troupe.db"): 0o600, filepath.Join(home, "agents", "a", "run"): 0o700, outside: 0o644}
	for p, mode := range want {
		fi, err := os.Stat(p)
		must(err)
		if fi.Mode().Perm() != mode {
			t.Errorf("%s: %04o, want %04o", p, fi.Mode().Perm(), mode)
		}
	}
	if n := strings.Count(buf.String(), "\n"); n != 1 || !strings.Contains(buf.String(), "tightened=5") {
		t.Fatalf("want one warning of 5 changes, got %d lines:\n%s", n, buf.String())
	}
	buf.Reset()
	tightenHome(home, log)
	if buf.Len() != 0 {
		t.Fatalf("a private home warned:\n%s", buf.String())
	}
}
