package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/testkit"
)

// seedLongSession writes session id with about n events into the store of
// home, as a cold session: runs of one step of 40 text deltas, the bulk of
// a real log.
func seedLongSession(b *testing.B, home, id string, n int) int64 {
	b.Helper()
	store, err := persistence.Open(filepath.Join(home, datahome.StoreFile), persistence.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	now := time.Now()
	var evs []event.Event
	add := func(kind event.Kind, payload any) {
		p, err := json.Marshal(payload)
		if err != nil {
			b.Fatal(err)
		}
		evs = append(evs, event.Event{SessionID: id, Seq: int64(len(evs) + 1), RecordedAt: now, Kind: kind, Payload: p})
	}
	add(event.SessionCreated, event.CreatedPayload{Cwd: home})
	for r := 0; len(evs) < n; r++ {
		run, msg := fmt.Sprintf("run-%d", r), fmt.Sprintf("m-%d", r)
		add(event.RunStarted, event.RunStartedPayload{RunID: run})
		add(event.StepStarted, event.StepStartedPayload{RunID: run, Step: 1, MessageID: msg})
		for range 40 {
			add(event.MessageDelta, event.MessageDeltaPayload{RunID: run, MessageID: msg, Channel: event.ChannelText, Text: "x "})
		}
		add(event.StepEnded, event.StepEndedPayload{RunID: run, Step: 1, MessageID: msg, FinishReason: "stop"})
		add(event.MessageCompleted, event.MessageCompletedPayload{RunID: run, MessageID: msg, Text: "x x x"})
		add(event.RunEnded, event.RunEndedPayload{RunID: run, StopReason: "end_turn"})
	}
	meta := persistence.SessionMeta{ID: id, Cwd: home, Status: persistence.StatusCold}
	for chunk := range slices.Chunk(evs, 5000) {
		b := persistence.Batch{Events: chunk}
		if chunk[0].Seq == 1 {
			b.Metas = []persistence.SessionMeta{meta}
		}
		if _, err := store.Commit(context.Background(), b); err != nil {
			panic(err)
		}
	}
	return int64(len(evs))
}

// BenchmarkKillToRecovered is a restart's cost by history length: one
// session of 1,000 or 100,000 events, killed and brought back by a
// request, per op. cold-ms is the first recovery, with no snapshot (the
// whole log, as every restart cost before snapshots); ns/op the ones
// after, from the snapshot; events-read/op what each read; snapshot-KiB
// the size of the fold it decodes (the conversation: one message a run).
func BenchmarkKillToRecovered(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			home := b.TempDir()
			const id = "long"
			last := seedLongSession(b, home, id, n)
			rt := testkit.Boot(b, actors.Options{Home: home})
			ctx := context.Background()
			start := time.Now()
			st, err := rt.Sessions.State(ctx, id)
			if err != nil || st.LastSeq != last {
				b.Fatalf("state %d, %v; want seq %d", st.LastSeq, err, last)
			}
			cold := time.Since(start)
			testkit.Eventually(b, time.Minute, "a fold snapshot", func() bool {
				snap, ok, err := rt.Store.LoadSnapshot(ctx, id, session.SnapshotKind, session.FoldVersion)
				return err == nil && ok && snap.Seq == last
			})
			snap, _, err := rt.Store.LoadSnapshot(ctx, id, session.SnapshotKind, session.FoldVersion)
			if err != nil {
				b.Fatal(err)
			}
			read := rt.Store.EventsRead()
			b.ResetTimer()
			for b.Loop() {
				if err := rt.Sessions.Kill(ctx, id); err != nil {
					b.Fatal(err)
				}
				if st, err := rt.Sessions.State(ctx, id); err != nil || st.LastSeq != last {
					b.Fatalf("state %d, %v; want seq %d", st.LastSeq, err, last)
				}
			}
			b.ReportMetric(float64(cold.Microseconds())/1000, "cold-ms")
			b.ReportMetric(float64(rt.Store.EventsRead()-read)/float64(b.N), "events-read/op")
			b.ReportMetric(float64(len(snap.Data))/1024, "snapshot-KiB")
		})
	}
}
