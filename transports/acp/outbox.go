package acp

import "sync"

// outbox hands the connection's messages to its writer without an actor
// message each: the connection appends, and wakes the writer only when it
// is idle; the writer takes everything queued at once, writes it and
// flushes once. A burst of updates then costs one wake-up and a few
// large socket writes instead of one per frame.
type outbox struct {
	mu    sync.Mutex
	items []outItem
	awake bool   // the writer was woken and has not found items empty since
	wake  func() // set by the writer once it started
}

// outItem is one message: its bytes when built by hand, else a value the
// writer marshals (off the connection's mailbox).
type outItem struct {
	raw []byte
	v   any
}

func (o *outbox) put(it outItem) {
	o.mu.Lock()
	o.items = append(o.items, it)
	wake := !o.awake && o.wake != nil
	if wake {
		o.awake = true
	}
	o.mu.Unlock()
	if wake {
		o.wake()
	}
}

// take swaps the queued items for spare (emptied) and returns them; at
// nil the outbox is empty and the writer goes idle.
func (o *outbox) take(spare []outItem) []outItem {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.items) == 0 {
		o.awake = false
		return nil
	}
	out := o.items
	o.items = spare[:0]
	return out
}

// start wires the writer's wake-up; items queued before it are written
// by the writer's first drain.
func (o *outbox) start(wake func()) {
	o.mu.Lock()
	o.wake = wake
	o.mu.Unlock()
}
