package persistence

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// A store from before the agent columns takes each session's agent and
// upstream session id from its log as it is opened: the newest
// session.created or settings_changed that names them; a session of
// troupe's own engine reads empty.
func TestOlderStoreTakesSessionAgentFromLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now()
	ev := func(id string, seq int64, kind event.Kind, payload string) event.Event {
		return event.Event{SessionID: id, Seq: seq, RecordedAt: now, Kind: kind, Payload: json.RawMessage(payload)}
	}
	b := Batch{Metas: []SessionMeta{{ID: "agent"}, {ID: "own"}}, Events: []event.Event{
		ev("agent", 1, event.SessionCreated, `{"cwd":"/w","settings":{"agent":"scripted"}}`),
		ev("agent", 2, event.SessionSettingsChanged, `{"upstream_session_id":"up-1"}`),
		ev("agent", 3, event.SessionSettingsChanged, `{"agent":"other","upstream_session_id":"up-2"}`),
		ev("own", 1, event.SessionCreated, `{"cwd":"/w","settings":{}}`),
	}}
	if _, err := s.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	// Back to schema 9: the columns later migrations add are gone.
	for _, q := range []string{"DROP INDEX sessions_by_upstream", "ALTER TABLE sessions DROP COLUMN agent",
		"ALTER TABLE sessions DROP COLUMN upstream_session_id", "ALTER TABLE sessions DROP COLUMN context_used",
		"PRAGMA user_version = 9"} {
		if _, err := s.writer.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Session(ctx, "agent")
	if err != nil {
		t.Fatal(err)
	}
	if got.Agent != "other" || got.UpstreamSessionID != "up-2" {
		t.Fatalf("agent row %+v", got)
	}
	own, err := s.Session(ctx, "own")
	if err != nil {
		t.Fatal(err)
	}
	if own.Agent != "" || own.UpstreamSessionID != "" {
		t.Fatalf("own row %+v", own)
	}
}

// A store from before the context column takes each session's context
// use from its log as it is opened: its last step's input, cache read
// and output, or 0 when a compaction ended well after it (a failed one
// changes nothing).
func TestOlderStoreTakesContextUseFromLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now()
	ev := func(id string, seq int64, kind event.Kind, payload string) event.Event {
		return event.Event{SessionID: id, Seq: seq, RecordedAt: now, Kind: kind, Payload: json.RawMessage(payload)}
	}
	b := Batch{Metas: []SessionMeta{{ID: "stepped"}, {ID: "compacted"}, {ID: "none"}}, Events: []event.Event{
		ev("stepped", 1, event.StepEnded, `{"usage":{"input":5}}`),
		ev("stepped", 2, event.StepEnded, `{"usage":{"input":100,"cache_read":20,"output":3}}`),
		ev("stepped", 3, event.CompactionEnded, `{"error":"the model failed"}`),
		ev("compacted", 1, event.StepEnded, `{"usage":{"input":100}}`),
		ev("compacted", 2, event.CompactionEnded, `{}`),
		ev("none", 1, event.MessageDelta, `{"text":"x"}`),
	}}
	if _, err := s.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"ALTER TABLE sessions DROP COLUMN context_used", "PRAGMA user_version = 10"} {
		if _, err := s.writer.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for id, want := range map[string]int64{"stepped": 123, "compacted": 0, "none": 0} {
		got, err := s.Session(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.ContextUsed != want {
			t.Errorf("%s: context_used %d, want %d", id, got.ContextUsed, want)
		}
	}
}
