package agent

import "sync"

// outbox queues events without bound and hands them, in order, to emit
// on its own goroutine, so that a slow reader of the events never blocks
// the actor or the VM. close waits until every event is emitted.
type outbox struct {
	mu      sync.Mutex
	queue   []Event
	closed  bool
	wake    chan struct{}
	drained chan struct{}
}

func newOutbox(emit func(Event)) *outbox {
	o := &outbox{wake: make(chan struct{}, 1), drained: make(chan struct{})}
	go o.run(emit)
	return o
}

func (o *outbox) push(e Event) {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return
	}
	o.queue = append(o.queue, e)
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

func (o *outbox) run(emit func(Event)) {
	defer close(o.drained)
	for {
		o.mu.Lock()
		batch, closed := o.queue, o.closed
		o.queue = nil
		o.mu.Unlock()
		for _, e := range batch {
			if emit != nil {
				emit(e)
			}
		}
		if closed && len(batch) == 0 {
			return
		}
		if len(batch) == 0 {
			<-o.wake
		}
	}
}

func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	<-o.drained
}
