package datahome

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The process key is made once, private, and every process on the home
// reads the same one, even when they start together.
func TestProcKeyIsMadeOnceAndPrivate(t *testing.T) {
	home := t.TempDir()
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := LoadProcKey(home)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if len(k) != procKeySize || !bytes.Equal(k, keys[0]) {
			t.Fatalf("keys differ: %x, %x", keys[0], k)
		}
	}
	fi, err := os.Stat(filepath.Join(home, ProcKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	if err := os.WriteFile(filepath.Join(home, ProcKeyFile), []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadProcKey(home); err == nil {
		t.Fatal("a damaged key was accepted")
	}
	if left, _ := filepath.Glob(filepath.Join(home, ".proc-key-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
