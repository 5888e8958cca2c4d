package persistence

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// A store from before migration 0013 takes each cold session's newest
// event's seq and time from its log as it is opened, so that a list,
// which reads a cold session's row alone, shows them.
func TestOlderStoreTakesSessionHeadsFromLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ev := func(id string, seq int64, at time.Duration) event.Event {
		return event.Event{SessionID: id, Seq: seq, RecordedAt: base.Add(at), Kind: event.MessageDelta, Payload: json.RawMessage(`{}`)}
	}
	b := Batch{Metas: []SessionMeta{{ID: "older"}, {ID: "newer"}}, Events: []event.Event{
		ev("older", 1, 0), ev("older", 2, time.Minute),
		ev("newer", 1, 0), ev("newer", 2, time.Minute), ev("newer", 3, time.Hour),
	}}
	if _, err := s.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	// Back to schema 12, its sessions cold as a daemon leaves them: rows
	// that never kept a head, and none of 0013's indexes.
	for _, q := range []string{"DROP INDEX sessions_cold", "DROP INDEX sessions_cold_by_cwd", "DROP INDEX sessions_open",
		"DROP INDEX events_raised", "CREATE INDEX sessions_by_cwd ON sessions (cwd, updated_at)",
		"UPDATE sessions SET status = 'cold', last_seq = 0, updated_at = created_at", "PRAGMA user_version = 12"} {
		if _, err := s.writer.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	if s, err = Open(path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.Sessions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("listed %d sessions, want 2", len(list))
	}
	for _, m := range list {
		want, _ := s.Session(ctx, m.ID) // read from the log
		if m.LastSeq != want.LastSeq || !m.UpdatedAt.Equal(want.UpdatedAt) {
			t.Errorf("%s listed seq %d at %s, its log says seq %d at %s", m.ID, m.LastSeq, m.UpdatedAt, want.LastSeq, want.UpdatedAt)
		}
	}
}

// A session's row keeps its head through the transaction that records it
// cold: events written while it was live, then its cold status, and the
// list shows the last of them; pages past a cursor continue the list.
func TestColdStatusKeepsTheHeadAListReads(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "troupe.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	base := time.Now().UTC().Add(time.Hour) // past the rows' own creation times
	for i, id := range []string{"a", "b", "c"} {
		at := base.Add(time.Duration(i) * time.Minute)
		b := Batch{Metas: []SessionMeta{{ID: id, Cwd: "/w"}}, Events: []event.Event{
			{SessionID: id, Seq: 1, RecordedAt: at, Kind: event.MessageDelta, Payload: json.RawMessage(`{}`)}}}
		if _, err := s.Commit(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	// a, the oldest, is written again while live, then goes cold in the
	// batch of its last event.
	late := base.Add(time.Hour)
	if _, err := s.Commit(ctx, Batch{Events: []event.Event{{SessionID: "a", Seq: 2, RecordedAt: late, Kind: event.MessageDelta, Payload: json.RawMessage(`{}`)}},
		Statuses: []StatusChange{{SessionID: "a", Status: StatusCold}, {SessionID: "b", Status: StatusCold}, {SessionID: "c", Status: StatusCold}}}); err != nil {
		t.Fatal(err)
	}
	list, err := s.Sessions(ctx, "/w")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range list {
		ids = append(ids, m.ID)
	}
	if len(ids) != 3 || ids[0] != "a" || ids[1] != "c" || ids[2] != "b" {
		t.Fatalf("order %v, want [a c b]", ids)
	}
	if list[0].LastSeq != 2 || !list[0].UpdatedAt.Equal(late) {
		t.Fatalf("a listed seq %d at %s, want 2 at %s", list[0].LastSeq, list[0].UpdatedAt, late)
	}
	after := CursorOf(list[0])
	page, err := s.SessionsPage(ctx, ListQuery{After: &after, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 1 || page[0].ID != "c" {
		t.Fatalf("the page after a is %+v, want c", page)
	}
}
