package persistence

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// A commit the store's file cannot take names its cause: SQLite's own
// "database or disk is full" (here from max_page_count, SQLite's limit on
// the file, set on the writer's one connection) is ErrDiskFull and
// ErrStoreWrite, nothing of the batch is written, and once there is room
// again the same batch commits.
func TestCommitOnAFullStoreIsErrDiskFull(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if _, err := s.Commit(ctx, Batch{Metas: []SessionMeta{{ID: "s1"}}, Events: events("s1", 1, 5)}); err != nil {
		t.Fatal(err)
	}
	fillStore(t, s)
	big := events("s1", 6, 2000)
	_, err := s.Commit(ctx, Batch{Events: big})
	var we *WriteError
	if !errors.Is(err, ErrDiskFull) || !errors.Is(err, ErrStoreWrite) || !errors.As(err, &we) || !we.Full {
		t.Fatalf("commit on a full store: %v, want ErrDiskFull", err)
	}
	if last, _ := s.LastSeq(ctx, "s1"); last != 5 {
		t.Fatalf("a failed commit wrote: last seq %d", last)
	}
	unfillStore(t, s)
	if _, err := s.Commit(ctx, Batch{Events: big}); err != nil {
		t.Fatalf("commit once there is room: %v", err)
	}
}

func TestClassifyWriteLeavesOtherErrorsAlone(t *testing.T) {
	plain := errors.New("context canceled")
	if got := classifyWrite(plain); got != plain {
		t.Fatalf("classifyWrite(%v) = %v", plain, got)
	}
	if classifyWrite(nil) != nil {
		t.Fatal("classifyWrite(nil) is not nil")
	}
}

// fillStore makes s full at its present size: SQLite's max_page_count, a
// limit of the writer's one connection, refuses to grow the file.
func fillStore(t *testing.T, s *Store) {
	t.Helper()
	var pages int
	if err := s.writer.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
}

// unfillStore lifts fillStore's limit.
func unfillStore(t *testing.T, s *Store) {
	t.Helper()
	if _, err := s.writer.Exec("PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
}
