package rpc

import (
	"io"
	"sync/atomic"
)

// The stdout writer's queue is unbounded: a connection that builds full
// partials faster than the client reads them would queue them all. So the
// connection counts the bytes it queues for the writer, the meter under
// the writer counts those written, and while the difference is above
// backlogHigh the connection holds deltas back, merging them into the next
// line it shows (a client concatenating deltas sees the same text, and the
// partial is as fresh as can be). Once the backlog is down to backlogLow
// the meter wakes the connection to show what it held.
const (
	backlogHigh = 1 << 20
	backlogLow  = 256 << 10
)

// meter sits between the writer actor and stdout.
type meter struct {
	w       io.Writer
	queued  atomic.Int64 // handed to the writer, not yet written
	waiting atomic.Bool  // the connection holds deltas back
	wake    func()       // sends the connection drained; from the writer's goroutine
}

// drained wakes the connection: the writer has caught up.
type drained struct{}

func (m *meter) Write(p []byte) (int, error) {
	n, err := m.w.Write(p)
	if m.queued.Add(-int64(n)) <= backlogLow && m.waiting.CompareAndSwap(true, false) {
		m.wake()
	}
	return n, err
}

// sent counts a line (and its newline) handed to the writer.
func (m *meter) sent(line []byte) { m.queued.Add(int64(len(line)) + 1) }

// behind says whether a delta should wait. When it says so, the meter
// will send drained once the backlog is low.
func (m *meter) behind() bool {
	if m.queued.Load() <= backlogHigh {
		return false
	}
	m.waiting.Store(true)
	// The writer may have drained between the two loads; then no Write
	// is left to wake the connection.
	if m.queued.Load() <= backlogLow && m.waiting.CompareAndSwap(true, false) {
		return false
	}
	return true
}
