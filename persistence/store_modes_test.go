package persistence

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A new store's files are its owner's alone whatever the umask lets
// through: the database, and the -wal and -shm SQLite makes beside it with
// the database's mode.
func TestOpenCreatesPrivateFiles(t *testing.T) {
	old := syscall.Umask(0o022) // the usual umask; restored for the other tests
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "home")
	path := filepath.Join(dir, "troupe.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Commit(context.Background(), Batch{Metas: []SessionMeta{{ID: "s1", Cwd: "/w"}}, Events: events("s1", 1, 3)}); err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{dir: 0o700, path: 0o600, path + "-wal": 0o600, path + "-shm": 0o600}
	for p, mode := range want {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != mode {
			t.Errorf("%s: mode %04o, want %04o", filepath.Base(p), got, mode)
		}
	}
}
