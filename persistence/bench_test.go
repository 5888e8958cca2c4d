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

var benchPayload = json.RawMessage(`{"run_id":"r1","message_id":"m1","index":0,"channel":"text","text":"tok"}`)

// BenchmarkCommit measures committed appends per second in batches of the
// size the writer actor forms under load (1: a lone event, as a live chunk
// is committed when nothing else is), written as a lease holder, as a
// running troupe writes.
func BenchmarkCommit(b *testing.B) {
	for _, size := range []int{1, 256, 4096} {
		b.Run("batch="+itoa(size), func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "troupe.db"), Options{Owner: ThisProcess("bench")})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			if _, err := s.Commit(ctx, Batch{Claims: []string{"bench"}, Metas: []SessionMeta{{ID: "bench"}}}); err != nil {
				b.Fatal(err)
			}
			batch := make([]event.Event, size)
			seq := int64(0)
			now := time.Now()
			b.ResetTimer()
			for i := 0; i < b.N; i += size {
				for k := range batch {
					seq++
					batch[k] = event.Event{SessionID: "bench", Seq: seq, RecordedAt: now, Kind: event.MessageDelta, Payload: benchPayload}
				}
				if _, err := s.Commit(ctx, Batch{Events: batch}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(seq)/b.Elapsed().Seconds(), "appends/s")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64((seq+int64(size)-1)/int64(size)), "µs/commit")
		})
	}
}

// BenchmarkCommitManySessions measures commits of 256 events spread over
// many sessions, as the writer's group commit forms them when thousands of
// sessions stream at once: each batch holds the next event of 256
// sessions taken in turn, so with 10,000 sessions the inserts land all
// over the log instead of at one session's end.
func BenchmarkCommitManySessions(b *testing.B) {
	const size = 256
	for _, n := range []int{1, 10_000} {
		b.Run("sessions="+itoa(n), func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "troupe.db"), Options{Owner: ThisProcess("bench")})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			ids := make([]string, n)
			setup := Batch{}
			for i := range ids {
				ids[i] = fmt.Sprintf("session-%05d", i)
				setup.Claims = append(setup.Claims, ids[i])
				setup.Metas = append(setup.Metas, SessionMeta{ID: ids[i]})
			}
			if _, err := s.Commit(ctx, setup); err != nil {
				b.Fatal(err)
			}
			seqs := make([]int64, n)
			batch := make([]event.Event, size)
			now := time.Now()
			next, total := 0, int64(0)
			b.ResetTimer()
			for i := 0; i < b.N; i += size {
				for k := range batch {
					seqs[next]++
					batch[k] = event.Event{SessionID: ids[next], Seq: seqs[next], RecordedAt: now, Kind: event.MessageDelta, Payload: benchPayload}
					next = (next + 1) % n
				}
				if _, err := s.Commit(ctx, Batch{Events: batch}); err != nil {
					b.Fatal(err)
				}
				total += size
			}
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "appends/s")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(total/size), "µs/commit")
		})
	}
}

// BenchmarkLoad measures replayed events per second from one session.
func BenchmarkLoad(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "troupe.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const total = 200_000
	if _, err := s.Commit(ctx, Batch{Metas: []SessionMeta{{ID: "bench"}}}); err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	for from := 1; from <= total; from += 4096 {
		batch := make([]event.Event, 0, 4096)
		for seq := from; seq < from+4096 && seq <= total; seq++ {
			batch = append(batch, event.Event{SessionID: "bench", Seq: int64(seq), RecordedAt: now, Kind: event.MessageDelta, Payload: benchPayload})
		}
		if _, err := s.Commit(ctx, Batch{Events: batch}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	n := 0
	for n < b.N {
		err := s.Load(ctx, "bench", 1, func(event.Event) error {
			n++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
