package persistence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// What the sessions facade reads, the same on both databases: lists and
// their pages, a session's kinds and attention events, search candidates,
// chains, deletes and imports, server records.

func ev(session string, seq int, at time.Time, kind event.Kind, payload string) event.Event {
	return event.Event{SessionID: session, Seq: int64(seq), RecordedAt: at, Kind: kind, Payload: json.RawMessage(payload)}
}

func TestContractListsAndPages(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := openTarget(t, b.target(t), Options{})
		ctx := context.Background()
		base := time.Now().UTC().Add(time.Hour)
		for i, id := range []string{"a", "b", "c", "d"} {
			at := base.Add(time.Duration(i) * time.Minute)
			mustCommit(t, s, Batch{Metas: []SessionMeta{{ID: id, Cwd: "/w", Interactive: new(id != "d")}},
				Events: []event.Event{ev(id, 1, at, event.MessageDelta, `{}`)}})
		}
		late := base.Add(time.Hour)
		mustCommit(t, s, Batch{Events: []event.Event{ev("a", 2, late, event.MessageDelta, `{}`)},
			Statuses: []StatusChange{{SessionID: "a", Status: StatusCold}, {SessionID: "b", Status: StatusCold}, {SessionID: "d", Status: StatusCold}}})
		ids := func(ms []SessionMeta) string {
			var out []string
			for _, m := range ms {
				out = append(out, m.ID)
			}
			return strings.Join(out, " ")
		}
		all, err := s.Sessions(ctx, "/w")
		if err != nil {
			t.Fatal(err)
		}
		// c is live (read from its log), the rest cold (from their rows).
		testEqual(t, ids(all), "a d c b")
		if all[0].LastSeq != 2 || !all[0].UpdatedAt.Equal(late) {
			t.Fatalf("a listed seq %d at %s, want 2 at %s", all[0].LastSeq, all[0].UpdatedAt, late)
		}
		after := CursorOf(all[0])
		page, err := s.SessionsPage(ctx, ListQuery{After: &after, Limit: 2, InteractiveOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		testEqual(t, ids(page), "c b")
		n, err := s.CountSessions(ctx)
		if err != nil || n != 4 {
			t.Fatalf("count %d, %v", n, err)
		}
		if other, _ := s.Sessions(ctx, "/elsewhere"); len(other) != 0 {
			t.Fatalf("another directory lists %s", ids(other))
		}
	})
}

func TestContractKindsAttentionAndSearch(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := openTarget(t, b.target(t), Options{})
		ctx := context.Background()
		now := time.Now()
		for _, id := range []string{"a", "b", "c"} {
			var evs []event.Event
			for i, k := range []event.Kind{event.MessageDelta, event.AttentionChanged, event.UpdateTransformed, event.RunEnded, event.ToolPermissionRequested} {
				evs = append(evs, ev(id, i+1, now, k, `{"text":"Needle in `+id+`"}`))
			}
			mustCommit(t, s, Batch{Metas: []SessionMeta{{ID: id}}, Events: evs})
		}
		var got []string
		read := func(e event.Event) error {
			got = append(got, fmt.Sprintf("%s:%d", e.SessionID, e.Seq))
			return nil
		}
		if err := s.LoadKind(ctx, "b", event.UpdateTransformed, read); err != nil {
			t.Fatal(err)
		}
		testEqual(t, strings.Join(got, " "), "b:3")
		got = nil
		if err := s.LoadAttention(ctx, []string{"c", "a"}, read); err != nil {
			t.Fatal(err)
		}
		testEqual(t, strings.Join(got, " "), "a:2 a:4 a:5 c:2 c:4 c:5")
		got = nil
		if err := s.LoadAttention(ctx, nil, read); err != nil {
			t.Fatal(err)
		}
		testEqual(t, len(got), 9)
		got = nil
		if err := s.SearchCandidates(ctx, "NEEDLE", []event.Kind{event.MessageDelta}, []string{"a", "c"}, read); err != nil {
			t.Fatal(err)
		}
		testEqual(t, strings.Join(got, " "), "a:1 c:1")
		got = nil
		if err := s.SearchCandidates(ctx, "needle in b", []event.Kind{event.MessageDelta, event.RunEnded}, nil, read); err != nil {
			t.Fatal(err)
		}
		testEqual(t, strings.Join(got, " "), "b:1 b:4")
	})
}

func TestContractChainsDeleteAndImport(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		target := b.target(t)
		s := openTarget(t, target, Options{Owner: ThisProcess("test")})
		ctx := context.Background()
		now := time.Now()
		mustCommit(t, s, Batch{Claims: []string{"p", "f"}, Metas: []SessionMeta{{ID: "p", Transformers: []string{"x"}}, {ID: "f", ParentID: "p", ForkedFromSeq: 1}},
			Events: []event.Event{ev("p", 1, now, event.SessionCreated, `{}`), ev("f", 1, now, event.SessionCreated, `{}`)}})
		chains, err := s.Chains(ctx)
		if err != nil || len(chains) != 1 || fmt.Sprint(chains["p"]) != "[x]" {
			t.Fatalf("chains %v, %v", chains, err)
		}
		if err := s.Delete(ctx, "p"); !errors.Is(err, ErrHasForks) {
			t.Fatalf("delete a parent: %v", err)
		}
		if err := s.SaveSnapshot(ctx, "f", Snapshot{Kind: "fold", Seq: 1, Data: []byte("x")}); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, "f"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Session(ctx, "f"); !errors.Is(err, ErrSessionNotFound) {
			t.Fatalf("deleted session reads %v", err)
		}
		if err := s.Delete(ctx, "f"); !errors.Is(err, ErrSessionNotFound) {
			t.Fatalf("delete again: %v", err)
		}
		// Another live owner's session is not deleted.
		other := openTarget(t, target, Options{Owner: Owner{ID: "other", PID: 1, Host: "elsewhere"}, LeaseTTL: time.Hour})
		mustCommit(t, other, Batch{Claims: []string{"o"}, Metas: []SessionMeta{{ID: "o"}}})
		var held *LeaseHeldError
		if err := s.Delete(ctx, "o"); !errors.As(err, &held) || held.Holder.ID != "other" {
			t.Fatalf("delete of another's session: %v", err)
		}

		imp := Import{Meta: SessionMeta{ID: "i", Title: "imported"}, Events: []event.Event{
			ev("i", 1, now, event.SessionCreated, `{}`), ev("i", 2, now, event.MessageDelta, `{"text":"x"}`)}}
		if err := s.Import(ctx, imp); err != nil {
			t.Fatal(err)
		}
		if err := s.Import(ctx, imp); !errors.Is(err, ErrSessionExists) {
			t.Fatalf("import again: %v", err)
		}
		m, err := s.Session(ctx, "i")
		if err != nil || m.Status != StatusCold || m.LastSeq != 2 || m.Title != "imported" {
			t.Fatalf("imported %+v, %v", m, err)
		}
	})
}

func TestContractServerRecords(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := openTarget(t, b.target(t), Options{})
		ctx := context.Background()
		r := NewServerRecord("big", 4242, 4242, "127.0.0.1", 8080)
		if err := s.RecordServer(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.Port = 8081
		if err := s.RecordServer(ctx, r); err != nil {
			t.Fatal(err)
		}
		list, err := s.Servers(ctx)
		if err != nil || len(list) != 1 || list[0].Port != 8081 || list[0].PID != 4242 {
			t.Fatalf("servers %+v, %v", list, err)
		}
		if err := s.ForgetServer(ctx, "big", 4242); err != nil {
			t.Fatal(err)
		}
		if list, _ := s.Servers(ctx); len(list) != 0 {
			t.Fatalf("forgotten server listed: %+v", list)
		}
	})
}

// Members starting at once against a new database migrate it once: the
// advisory lock queues them.
func TestContractMigrationsFromOneDescription(t *testing.T) {
	if err := checkMigrations(); err != nil {
		t.Fatal(err)
	}
	eachBackend(t, func(t *testing.T, b backend) {
		target := b.target(t)
		var wg sync.WaitGroup
		errs := make(chan error, 3)
		for range 3 {
			wg.Go(func() {
				s, err := OpenTarget(target, Options{})
				if err == nil {
					err = s.Close()
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		s := openTarget(t, target, Options{})
		q := "PRAGMA user_version"
		if s.Postgres() {
			q = "SELECT max(version) FROM schema_version"
		}
		var v int
		if err := s.reader.QueryRow(q).Scan(&v); err != nil || v != SchemaVersion() {
			t.Fatalf("schema version %d, %v; want %d", v, err, SchemaVersion())
		}
	})
}
