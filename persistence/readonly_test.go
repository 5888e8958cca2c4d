package persistence

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
)

// A read-only store reads what a writer committed, even while the writer
// has it open, and refuses every write with ErrReadOnly.
func TestReadOnlyReadsAndRefusesWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	if _, err := w.Commit(ctx, Batch{Metas: []SessionMeta{{ID: "s1", Cwd: "/w"}}, Events: events("s1", 1, 3)}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	if err := r.Load(ctx, "s1", 1, func(event.Event) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("read %d events, want 3", n)
	}
	if _, err := r.Commit(ctx, Batch{Events: events("s1", 4, 1)}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("commit: %v", err)
	}
	if err := r.Delete(ctx, "s1"); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("delete: %v", err)
	}
}

// A path with no store is an error, not a new empty store.
func TestReadOnlyNeedsAStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	if _, err := OpenReadOnly(path); err == nil {
		t.Fatal("opened a store that does not exist")
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a read-only open left a file behind: %v", err)
	}
}
