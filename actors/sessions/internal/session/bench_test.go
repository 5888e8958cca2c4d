package session_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

// BenchmarkSessionAppend measures committed appends per second through the
// whole path: client -> registry -> session (seq, fold) -> writer (group
// commit) -> reply, with clients appending 64 events per request.
func BenchmarkSessionAppend(b *testing.B) {
	rt := testkit.Boot(b, actors.Options{})
	ctx := context.Background()
	testkit.NoError(b, rt.Sessions.Create(ctx, "bench", event.CreatedPayload{}))
	const perRequest = 64
	drafts := make([]event.Draft, perRequest)
	for i := range drafts {
		drafts[i] = delta(b, "tok")
	}
	var appended atomic.Int64
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := rt.Sessions.Append(ctx, "bench", drafts...); err != nil {
				b.Error(err)
				return
			}
			appended.Add(perRequest)
		}
	})
	b.ReportMetric(float64(appended.Load())/b.Elapsed().Seconds(), "appends/s")
}
