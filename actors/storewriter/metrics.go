package storewriter

import (
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/runtime/metrics"
)

// observeCommit records one commit's latency and the events it made
// durable (a session's writes the store left out are not appended).
func observeCommit(b persistence.Batch, o persistence.Outcome, err error, took time.Duration) {
	if b.Empty() {
		return
	}
	metrics.CommitSeconds.Observe(took.Seconds())
	if err != nil {
		return
	}
	n := len(b.Events)
	if len(o.Lost) == 0 && len(o.Failed) == 0 {
		metrics.EventsAppended.Add(float64(n)) // the common case: all of it
		return
	}
	n = 0
	for _, e := range b.Events {
		if o.LeftOut(e.SessionID) == nil {
			n++
		}
	}
	metrics.EventsAppended.Add(float64(n))
}
