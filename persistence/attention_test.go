package persistence

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// TestKindReadsUseTheirPartialIndexes guards the literal WHEREs: with a
// bound parameter instead, SQLite silently scans the whole log.
func TestKindReadsUseTheirPartialIndexes(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "troupe.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	plan := func(q string, args ...any) string {
		rows, err := s.reader.Query("EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatalf("plan %s: %v", q, err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			out = append(out, detail)
		}
		return strings.Join(out, "; ")
	}
	if p := plan(kindQuery(event.UpdateTransformed), "s"); !strings.Contains(p, "events_update_transformed") {
		t.Errorf("update.transformed read: %s", p)
	}
	for _, n := range []int{0, 2} {
		args := []any{"a", "b"}[:n]
		if p := plan(attentionQuery(n), args...); !strings.Contains(p, "events_attention") {
			t.Errorf("attention read of %d sessions: %s", n, p)
		}
	}
}

func TestLoadAttentionReadsOnlyItsKinds(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "troupe.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	now := time.Now()
	for _, id := range []string{"a", "b", "c"} {
		if _, err := s.Commit(ctx, Batch{Metas: []SessionMeta{{ID: id}}}); err != nil {
			t.Fatal(err)
		}
		var evs []event.Event
		for i, k := range []event.Kind{event.MessageDelta, event.AttentionChanged, event.MessageDelta, event.RunEnded, event.ToolPermissionRequested} {
			evs = append(evs, event.Event{SessionID: id, Seq: int64(i + 1), RecordedAt: now, Kind: k, Payload: json.RawMessage(`{}`)})
		}
		if _, err := s.Commit(ctx, Batch{Events: evs}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	read := func(e event.Event) error {
		got = append(got, e.SessionID+":"+string(e.Kind))
		return nil
	}
	if err := s.LoadAttention(ctx, []string{"c", "a"}, read); err != nil {
		t.Fatal(err)
	}
	want := "a:attention.changed a:run.ended a:tool.permission_requested c:attention.changed c:run.ended c:tool.permission_requested"
	if g := strings.Join(got, " "); g != want {
		t.Fatalf("named: %s\nwant %s", g, want)
	}
	got = nil
	if err := s.LoadAttention(ctx, nil, read); err != nil {
		t.Fatal(err)
	}
	if len(got) != 9 {
		t.Fatalf("all sessions: %v", got)
	}
}
