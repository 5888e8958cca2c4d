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
	// Seq 5 again: the primary key refuses it and the good rows go too.
	_, err := s.Commit(ctx, Batch{Events: append(events("s1", 6, 3), events("s1", 5, 1)...)})
	if err == nil {
		t.Fatal("duplicate seq committed")
	}
	if last, _ := s.LastSeq(ctx, "s1"); last != 5 {
		t.Fatalf("partial batch landed: last seq %d", last)
	}
	// Events of an unknown session break the foreign key.
	if _, err := s.Commit(ctx, Batch{Events: events("nobody", 1, 1)}); err == nil {
		t.Fatal("event of unknown session committed")
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
