package persistence

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "troupe.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func events(session string, from, n int) []event.Event {
	out := make([]event.Event, n)
	for i := range out {
		out[i] = event.Event{SessionID: session, Seq: int64(from + i), RecordedAt: time.Now(),
			Kind: event.MessageDelta, Payload: json.RawMessage(fmt.Sprintf(`{"text":"t%d"}`, from+i))}
	}
	return out
}

func TestCommitAndLoad(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	meta := SessionMeta{ID: "s1", Title: "first", Cwd: "/w"}
	// 300 rows cross the multi-row INSERT boundary twice.
	if _, err := s.Commit(ctx, Batch{Metas: []SessionMeta{meta}, Events: events("s1", 1, 300)}); err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	err := s.Load(ctx, "s1", 250, func(e event.Event) error {
		seqs = append(seqs, e.Seq)
		if e.Kind != event.MessageDelta || !strings.Contains(string(e.Payload), fmt.Sprintf("t%d", e.Seq)) {
			t.Fatalf("event %d: %s %s", e.Seq, e.Kind, e.Payload)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 51 || seqs[0] != 250 || seqs[50] != 300 {
		t.Fatalf("loaded %d events %v", len(seqs), seqs)
	}
	got, err := s.Session(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got.LastSeq != 300 || got.Title != "first" || got.Status != StatusLive {
		t.Fatalf("meta %+v", got)
	}
	if last, _ := s.LastSeq(ctx, "s1"); last != 300 {
		t.Fatalf("last seq %d", last)
	}
}

func TestCommitIsAtomic(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if _, err := s.Commit(ctx, Batch{Metas: []SessionMeta{{ID: "s1"}}, Events: events("s1", 1, 5)}); err != nil {
		t.Fatal(err)
	}
	// Seq 5 again: the primary key refuses it and the session's good rows
	// go too.
	out, err := s.Commit(ctx, Batch{Events: append(events("s1", 6, 3), events("s1", 5, 1)...)})
	if err != nil || out.Failed["s1"] == nil {
		t.Fatalf("duplicate seq: error %v, failed %v", err, out.Failed)
	}
	if last, _ := s.LastSeq(ctx, "s1"); last != 5 {
		t.Fatalf("partial batch landed: last seq %d", last)
	}
	// Events of an unknown session break the foreign key.
	if out, err := s.Commit(ctx, Batch{Events: events("nobody", 1, 1)}); err != nil || out.Failed["nobody"] == nil {
		t.Fatalf("event of unknown session: error %v, failed %v", err, out.Failed)
	}
	if _, err := s.Session(ctx, "nobody"); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}

// One session's refused row (a seq collision, as a damaged log makes)
// leaves that session's writes out of the batch, all of them, and only
// them: its neighbours' events, metas and statuses commit.
func TestCommitLeavesOutOnlyTheRefusedSession(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	for _, id := range []string{"bad", "good"} {
		if _, err := s.Commit(ctx, Batch{Metas: []SessionMeta{{ID: id, Title: "before"}}, Events: events(id, 1, 3)}); err != nil {
			t.Fatal(err)
		}
	}
	// 300 events of each, interleaved in runs so that every multi-row
	// INSERT mixes the two sessions; bad's collision is in the middle.
	var evs []event.Event
	bad, good := append(events("bad", 4, 150), events("bad", 3, 1)...), events("good", 4, 300)
	bad = append(bad, events("bad", 154, 149)...)
	for i := 0; i < 300; i += 50 {
		evs = append(evs, good[i:i+50]...)
		evs = append(evs, bad[i:i+50]...)
	}
	out, err := s.Commit(ctx, Batch{
		Metas:    []SessionMeta{{ID: "bad", Title: "after"}, {ID: "good", Title: "after"}},
		Events:   evs,
		Statuses: []StatusChange{{SessionID: "bad", Status: StatusCold}, {SessionID: "good", Status: StatusCold}},
	})
	if err != nil {
		t.Fatalf("the batch failed: %v", err)
	}
	if len(out.Failed) != 1 || out.Failed["bad"] == nil || !strings.Contains(out.Failed["bad"].Error(), "UNIQUE") {
		t.Fatalf("failed %v, want bad's seq collision alone", out.Failed)
	}
	for id, want := range map[string]struct {
		last          int64
		title, status string
	}{"bad": {3, "before", StatusLive}, "good": {303, "after", StatusCold}} {
		m, err := s.Session(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if m.LastSeq != want.last || m.Title != want.title || m.Status != want.status {
			t.Fatalf("%s: last seq %d, title %q, status %q; want %+v", id, m.LastSeq, m.Title, m.Status, want)
		}
	}
}

func TestStatusAndListing(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	b := Batch{Metas: []SessionMeta{{ID: "a", Cwd: "/x"}, {ID: "b", Cwd: "/y"}}}
	if _, err := s.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, Batch{Statuses: []StatusChange{{SessionID: "a", Status: StatusFailed, Reason: "boom"}}}); err != nil {
		t.Fatal(err)
	}
	a, err := s.Session(ctx, "a")
	if err != nil || a.Status != StatusFailed || a.StatusReason != "boom" {
		t.Fatalf("a = %+v, %v", a, err)
	}
	list, err := s.Sessions(ctx, "/y")
	if err != nil || len(list) != 1 || list[0].ID != "b" {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if _, err := s.Session(ctx, "zzz"); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("missing session: %v", err)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion()+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(path, Options{})
	if err == nil || !strings.Contains(err.Error(), "newer than this troupe") {
		t.Fatalf("open newer store: %v", err)
	}
}

func TestOlderSchemaIsMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	// A store from before any migration: an empty SQLite file.
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE unrelated (x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := s.reader.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion() {
		t.Fatalf("user_version %d, %v", v, err)
	}
	if verdict, err := s.IntegrityCheck(); err != nil || verdict != "ok" {
		t.Fatalf("integrity %q %v", verdict, err)
	}
}
