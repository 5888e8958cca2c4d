package persistence

import (
	"context"
	"errors"
	"testing"
)

// A seq the store already holds is told apart from other commit failures.
func TestIsSeqConflict(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	meta := SessionMeta{ID: "s1", Cwd: "/w"}
	if _, err := s.Commit(ctx, Batch{Metas: []SessionMeta{meta}, Events: events("s1", 1, 3)}); err != nil {
		t.Fatal(err)
	}
	// The refused session's writes are left out of the batch, and the
	// outcome says why.
	out, err := s.Commit(ctx, Batch{Events: events("s1", 3, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if err := out.LeftOut("s1"); err == nil || !IsSeqConflict(err) {
		t.Fatalf("commit of a taken seq: %v, want a seq conflict", err)
	}
	if IsSeqConflict(errors.New("disk I/O error")) || IsSeqConflict(nil) {
		t.Fatal("other errors count as seq conflicts")
	}
}
