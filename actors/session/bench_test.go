package session_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime"
	"github.com/troupehq/troupe/testkit"
)

// BenchmarkSessionAppend measures committed appends per second through the
// whole path: client -> registry -> session (seq, fold) -> writer (group
// commit) -> reply, with clients appending 64 events per request.
func BenchmarkSessionAppend(b *testing.B) {
	rt := testkit.Boot(b, runtime.Options{})
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

// BenchmarkSubscriberLatency measures the time from an append request to a
// live subscriber holding the committed event.
func BenchmarkSubscriberLatency(b *testing.B) {
	rt := testkit.Boot(b, runtime.Options{})
	ctx := context.Background()
	testkit.NoError(b, rt.Sessions.Create(ctx, "lat", event.CreatedPayload{}))
	c := testkit.NewCollector(b, rt.System)
	_, err := rt.Sessions.Subscribe(ctx, "lat", 0, true, c.PID())
	testkit.NoError(b, err)
	d := delta(b, "tok")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, last, err := rt.Sessions.Append(ctx, "lat", d)
		if err != nil {
			b.Fatal(err)
		}
		c.WaitSeq(b, last, 5e9)
	}
}
