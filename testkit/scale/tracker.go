package scale

import (
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// tracker is the one subscriber actor of every session: it counts each
// session's run.ended events and says when all sessions have ended all
// their runs, then when all subscriptions have closed. One actor for all
// sessions keeps the benchmark's own cost per session to a map entry.
//
// It also samples chunk latency: for every sampleEvery-th message.delta,
// the time from the event's RecordedAt (stamped by its session as it
// commits it) to this subscriber's receipt of the committed batch. A
// fixed share of the deltas keeps the samples to about maxSamples whatever
// N, so they do not weigh on the peak memory measured.
type tracker struct {
	sessions, runs int
	ended          map[string]int

	sampleEvery, deltas int
	latency             []time.Duration
	// samples hands latency over as the last run ends, so the tracker
	// keeps none of it while idle memory is measured.
	samples chan []time.Duration

	finished  atomic.Int64 // sessions whose runs all ended
	allEnded  chan struct{}
	closed    int
	allClosed chan struct{}
}

// maxSamples bounds the chunk latency samples.
const maxSamples = 20_000

func newTracker(sessions, runs, deltas int) *tracker {
	// Each run streams deltas per answer, the first of a session two
	// answers: about sessions*(runs+1)*deltas in all.
	every := max(1, sessions*(runs+1)*deltas/maxSamples)
	return &tracker{
		sessions: sessions, runs: runs, ended: make(map[string]int, sessions),
		sampleEvery: every, latency: make([]time.Duration, 0, maxSamples+maxSamples/10),
		samples:  make(chan []time.Duration, 1),
		allEnded: make(chan struct{}), allClosed: make(chan struct{}),
	}
}

func (t *tracker) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *sessions.Events:
		now := time.Now()
		for _, e := range m.Events {
			if e.Kind == event.MessageDelta {
				t.sample(now, e.RecordedAt)
				continue
			}
			if e.Kind != event.RunEnded {
				continue
			}
			t.ended[e.SessionID]++
			if t.ended[e.SessionID] != t.runs {
				continue
			}
			if t.finished.Add(1) == int64(t.sessions) {
				t.ended = nil // measured after the runs: keep nothing
				t.samples <- t.latency
				t.latency = nil
				close(t.allEnded)
			}
		}
	case *sessions.Closed:
		t.closed++
		if t.closed == t.sessions {
			close(t.allClosed)
		}
	}
}

// sample keeps every sampleEvery-th delta's latency, while there is room.
func (t *tracker) sample(now, recorded time.Time) {
	t.deltas++
	if t.deltas%t.sampleEvery != 0 || len(t.latency) == cap(t.latency) {
		return
	}
	t.latency = append(t.latency, now.Sub(recorded))
}
