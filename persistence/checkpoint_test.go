package persistence

import (
	"context"
	"os"
	"testing"
	"time"
)

// waitFor polls cond (testkit imports this package, so it cannot be used).
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true within %s", what, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// No commit checkpoints: SQLite's automatic checkpoint is off on the writer
// connection, so the database file grows only by the checkpointer's hand.
func TestWriterDoesNotCheckpoint(t *testing.T) {
	s := openTemp(t)
	var pages int
	if err := s.writer.QueryRow("PRAGMA wal_autocheckpoint").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if pages != 0 {
		t.Fatalf("writer's wal_autocheckpoint = %d, want 0", pages)
	}
}

// Past about checkpointFrames of writes the checkpointer copies the WAL
// into the database file; once the store is idle it truncates the WAL.
func TestCheckpointerCopiesThenTruncates(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if _, err := s.Commit(ctx, Batch{Metas: []SessionMeta{{ID: "s1"}}}); err != nil {
		t.Fatal(err)
	}
	before := fileSize(t, s.path)
	// ~1,200 frames of payload: past the PASSIVE threshold.
	for from := 1; from <= 24_000; from += 1000 {
		if _, err := s.Commit(ctx, Batch{Events: events("s1", from, 1000)}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 10*time.Second, "database file grew by a checkpoint", func() bool {
		return fileSize(t, s.path) > before+1<<20
	})
	waitFor(t, 10*time.Second, "idle WAL truncated", func() bool { return s.WALSize() == 0 })

	// Nothing was lost on the way.
	last, err := s.LastSeq(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if last != 24_000 {
		t.Fatalf("last seq %d, want 24000", last)
	}
	if v, err := s.IntegrityCheck(); err != nil || v != "ok" {
		t.Fatalf("integrity %q %v", v, err)
	}
}

// Close stops the checkpointer and may be called with it already stopped.
func TestCloseStopsCheckpointer(t *testing.T) {
	s := openTemp(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.ckpt.done:
	default:
		t.Fatal("checkpointer still running after Close")
	}
}
