package persistence

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// BenchmarkAttentionRead measures what a session list's awaitingInput
// costs: the few kinds of every session's attention fold, read through
// their partial index (naming the sessions, or all of them), against the
// same kinds read by a scan (SearchCandidates) and each log read whole, for
// 200 sessions of 1000 deltas and two attention events each.
func BenchmarkAttentionRead(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "troupe.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const sessions, deltas = 200, 1000
	kinds := []event.Kind{event.AttentionChanged, event.ToolPermissionRequested, event.ToolPermissionResolved,
		event.RunEnded, event.RunInterrupted}
	attention := json.RawMessage(`{"flags":[],"set":[{"source":"planner","reason":"review","raised_at":1}]}`)
	now := time.Now()
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = fmt.Sprintf("s%03d", i)
		if _, err := s.Commit(ctx, Batch{Metas: []SessionMeta{{ID: ids[i]}}}); err != nil {
			b.Fatal(err)
		}
		evs := make([]event.Event, 0, deltas+2)
		for seq := int64(1); seq <= deltas+2; seq++ {
			e := event.Event{SessionID: ids[i], Seq: seq, RecordedAt: now, Kind: event.MessageDelta, Payload: benchPayload}
			if seq == deltas/2 || seq == deltas+2 {
				e.Kind, e.Payload = event.AttentionChanged, attention
			}
			evs = append(evs, e)
		}
		if _, err := s.Commit(ctx, Batch{Events: evs}); err != nil {
			b.Fatal(err)
		}
	}
	count := func(n *int) func(event.Event) error { return func(event.Event) error { *n++; return nil } }
	b.Run("index-named", func(b *testing.B) {
		for b.Loop() {
			n := 0
			if err := s.LoadAttention(ctx, ids, count(&n)); err != nil || n != 2*sessions {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("index-all", func(b *testing.B) {
		for b.Loop() {
			n := 0
			if err := s.LoadAttention(ctx, nil, count(&n)); err != nil || n != 2*sessions {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("kinds-named", func(b *testing.B) {
		for b.Loop() {
			n := 0
			if err := s.SearchCandidates(ctx, "", kinds, ids, count(&n)); err != nil || n != 2*sessions {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("kinds-all", func(b *testing.B) {
		for b.Loop() {
			n := 0
			if err := s.SearchCandidates(ctx, "", kinds, nil, count(&n)); err != nil || n != 2*sessions {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("whole-logs", func(b *testing.B) {
		for b.Loop() {
			for _, id := range ids {
				n := 0
				if err := s.Load(ctx, id, 1, count(&n)); err != nil || n != deltas+2 {
					b.Fatal(n, err)
				}
			}
		}
	})
}
