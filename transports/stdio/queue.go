package stdio

import "sync"

// Queue hands lines to a writer without a message per line: the sender
// appends them to a buffer and wakes the writer only when it is idle; the
// writer takes everything queued at once, writes it and flushes when
// nothing is left. So a burst of lines costs one wake-up and a few large
// writes, and a line with nothing after it is written at once.
type Queue struct {
	mu    sync.Mutex
	buf   []byte // lines, each with its newline
	awake bool   // the writer was woken and has not found buf empty since
	wake  func() // set by the writer once it started
}

// Line queues b as one line (a newline is added). b is copied: the caller
// may reuse it.
func (q *Queue) Line(b []byte) {
	q.mu.Lock()
	q.buf = append(append(q.buf, b...), '\n')
	wake := !q.awake && q.wake != nil
	if wake {
		q.awake = true
	}
	q.mu.Unlock()
	if wake {
		q.wake()
	}
}

// put queues a line without waking the writer: the writer's own, which
// it drains next.
func (q *Queue) put(b []byte) {
	q.mu.Lock()
	q.buf = append(append(q.buf, b...), '\n')
	q.mu.Unlock()
}

// take swaps the queued lines for spare (emptied) and returns them; at
// nil the queue is empty and the writer goes idle.
func (q *Queue) take(spare []byte) []byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.buf) == 0 {
		q.awake = false
		return nil
	}
	out := q.buf
	q.buf = spare[:0]
	return out
}

// start wires the writer's wake-up; lines queued before it are written by
// the writer's first drain.
func (q *Queue) start(wake func()) {
	q.mu.Lock()
	q.wake = wake
	q.mu.Unlock()
}
