package persistence

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// importLog is a session's whole log: session.created and n deltas.
func importLog(id string, n int) []event.Event {
	now := time.Now()
	evs := []event.Event{{SessionID: id, Seq: 1, RecordedAt: now, Kind: event.SessionCreated, Payload: json.RawMessage(`{}`)}}
	for i := range n {
		evs = append(evs, event.Event{SessionID: id, Seq: int64(i + 2), RecordedAt: now, Kind: event.MessageDelta,
			Payload: json.RawMessage(`{"run_id":"r","message_id":"m","index":0,"channel":"text","text":"x"}`)})
	}
	return evs
}

// An import is all or nothing: whole and cold with no lease when it
// commits; when any part of it fails, nothing of it is there.
func TestImportIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "troupe.db")
	self := ThisProcess("test")
	s := openAs(t, path, self, time.Hour)
	count := func(id string) int64 {
		n, err := s.LastSeq(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	if err := s.Import(ctx, Import{Meta: SessionMeta{ID: "a", Title: "imported"}, Events: importLog("a", 1000)}); err != nil {
		t.Fatal(err)
	}
	m, err := s.Session(ctx, "a")
	if err != nil || m.Status != StatusCold || m.Title != "imported" || m.LastSeq != 1001 {
		t.Fatalf("imported session: %+v, %v", m, err)
	}
	if l, _ := s.Lease(ctx, "a"); l != nil {
		t.Fatalf("an import left a lease: %+v", l)
	}

	// A row the store refuses half way (a NULL payload: NOT NULL) leaves
	// nothing, not the rows inserted before it.
	bad := importLog("b", 600)
	bad[500].Payload = nil
	if err := s.Import(ctx, Import{Meta: SessionMeta{ID: "b"}, Events: bad}); err == nil || !strings.Contains(err.Error(), "NOT NULL") {
		t.Fatalf("an import with a NULL payload: %v", err)
	}
	bad = importLog("b", 600)
	bad[500].Seq = 500
	if err := s.Import(ctx, Import{Meta: SessionMeta{ID: "b"}, Events: bad}); err == nil {
		t.Fatal("an import with a gap was accepted")
	}
	bad = append(importLog("b", 600), importLog("b", 0)...)
	if err := s.Import(ctx, Import{Meta: SessionMeta{ID: "b"}, Events: bad}); err == nil {
		t.Fatal("an import that is not one log was accepted")
	}
	if _, err := s.Session(ctx, "b"); !errors.Is(err, ErrSessionNotFound) || count("b") != 0 {
		t.Fatalf("a refused import left session b: %v, %d events", err, count("b"))
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Import(cancelled, Import{Meta: SessionMeta{ID: "c"}, Events: importLog("c", 1000)}); err == nil {
		t.Fatal("a cancelled import was written")
	}
	if _, err := s.Session(ctx, "c"); !errors.Is(err, ErrSessionNotFound) || count("c") != 0 {
		t.Fatalf("a cancelled import left session c: %v, %d events", err, count("c"))
	}

	// An id in use is refused without Replace, and replaced with it.
	if err := s.Import(ctx, Import{Meta: SessionMeta{ID: "a"}, Events: importLog("a", 3)}); !errors.Is(err, ErrSessionExists) {
		t.Fatalf("import over a session without replace: %v", err)
	}
	testEqual(t, count("a"), 1001)
	if err := s.Import(ctx, Import{Meta: SessionMeta{ID: "a", Title: "again"}, Events: importLog("a", 3), Replace: true}); err != nil {
		t.Fatal(err)
	}
	testEqual(t, count("a"), 4)
	if err := s.Import(ctx, Import{Meta: SessionMeta{ID: "nope"}, Events: importLog("nope", 3), Replace: true}); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("replace of no session: %v", err)
	}
}

// Replace is refused as a delete is: while another live process holds the
// session, the import writes nothing and the session stays as it was.
func TestImportReplaceRefusedWhileHeld(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "troupe.db")
	self := ThisProcess("test")
	pid, _ := holderProcess(t)
	other := openAs(t, path, owner("other", pid, self.Host), time.Hour)
	s := openAs(t, path, self, time.Hour)
	mustCommit(t, other, Batch{Claims: []string{"held"}, Metas: []SessionMeta{{ID: "held"}}, Events: importLog("held", 2)})
	var held *LeaseHeldError
	if err := s.Import(ctx, Import{Meta: SessionMeta{ID: "held"}, Events: importLog("held", 9), Replace: true}); !errors.As(err, &held) {
		t.Fatalf("replace of a held session: %v", err)
	}
	if n, _ := s.LastSeq(ctx, "held"); n != 3 {
		t.Fatalf("the held session has %d events after a refused replace, want its 3", n)
	}
}

func testEqual[T comparable](t *testing.T, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}
