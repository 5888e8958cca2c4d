package persistence

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

func TestDeleteRemovesTheSessionUnlessAnotherProcessHoldsIt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "troupe.db")
	self := ThisProcess("test")
	pid, kill := holderProcess(t)
	other := openAs(t, path, owner("other", pid, self.Host), time.Hour)
	s := openAs(t, path, self, time.Hour)
	ev := func(id string) event.Event {
		return event.Event{SessionID: id, Seq: 1, RecordedAt: time.Now(), Kind: event.SessionCreated, Payload: json.RawMessage(`{}`)}
	}
	mustCommit(t, other, Batch{Claims: []string{"held"}, Metas: []SessionMeta{{ID: "held"}}, Events: []event.Event{ev("held")}})
	mustCommit(t, s, Batch{Claims: []string{"mine"}, Metas: []SessionMeta{{ID: "mine"}}, Events: []event.Event{ev("mine")}})

	var held *LeaseHeldError
	if err := s.Delete(ctx, "held"); !errors.As(err, &held) || held.Holder.ID != "other" {
		t.Fatalf("delete of a held session: %v", err)
	}
	if _, err := s.Session(ctx, "held"); err != nil {
		t.Fatalf("the held session is gone: %v", err)
	}
	if err := s.Delete(ctx, "mine"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, "mine"); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("session after delete: %v", err)
	}
	if n, _ := s.LastSeq(ctx, "mine"); n != 0 {
		t.Fatalf("events left: last seq %d", n)
	}
	if l, _ := s.Lease(ctx, "mine"); l != nil {
		t.Fatalf("lease left: %+v", l)
	}
	if err := s.Delete(ctx, "mine"); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	// Its holder gone, the session can be deleted.
	kill()
	if err := s.Delete(ctx, "held"); err != nil {
		t.Fatalf("delete after the holder died: %v", err)
	}
}
