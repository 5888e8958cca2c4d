package scale

import (
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// tracker is the one subscriber actor of every session: it counts each
// session's run.ended events and says when all sessions have ended all
// their runs, then when all subscriptions have closed. One actor for all
// sessions keeps the benchmark's own cost per session to a map entry.
type tracker struct {
	sessions, runs int
	ended          map[string]int

	finished  atomic.Int64 // sessions whose runs all ended
	allEnded  chan struct{}
	closed    int
	allClosed chan struct{}
}

func newTracker(sessions, runs int) *tracker {
	return &tracker{
		sessions: sessions, runs: runs, ended: make(map[string]int, sessions),
		allEnded: make(chan struct{}), allClosed: make(chan struct{}),
	}
}

func (t *tracker) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *sessions.Events:
		for _, e := range m.Events {
			if e.Kind != event.RunEnded {
				continue
			}
			t.ended[e.SessionID]++
			if t.ended[e.SessionID] != t.runs {
				continue
			}
			if t.finished.Add(1) == int64(t.sessions) {
				t.ended = nil // measured after the runs: keep nothing
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
