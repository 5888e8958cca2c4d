package testkit

import (
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// Collector is a subscriber actor that keeps every event it is sent.
type Collector struct {
	pid *actor.PID

	mu     sync.Mutex
	events []event.Event
	closed string
	notify chan struct{}
}

// NewCollector spawns a collector in sys; it stops when the test ends.
func NewCollector(t testing.TB, sys *actor.ActorSystem) *Collector {
	t.Helper()
	c := &Collector{notify: make(chan struct{}, 1)}
	c.pid = sys.Root.Spawn(actor.PropsFromFunc(c.receive))
	t.Cleanup(func() { sys.Root.Stop(c.pid) })
	return c
}

// PID is where subscriptions deliver.
func (c *Collector) PID() *actor.PID { return c.pid }

func (c *Collector) receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *sessions.Events:
		c.mu.Lock()
		c.events = append(c.events, m.Events...)
		c.mu.Unlock()
	case *sessions.Closed:
		c.mu.Lock()
		c.closed = m.Reason
		c.mu.Unlock()
	default:
		return
	}
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// Events returns a copy of what arrived so far.
func (c *Collector) Events() []event.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]event.Event(nil), c.events...)
}

// Closed is the reason the subscription ended, "" while it is open.
func (c *Collector) Closed() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// WaitSeq waits until an event with seq >= seq arrived, and returns all.
func (c *Collector) WaitSeq(t testing.TB, seq int64, timeout time.Duration) []event.Event {
	t.Helper()
	return c.WaitFor(t, timeout, func(evs []event.Event) bool {
		return len(evs) > 0 && evs[len(evs)-1].Seq >= seq
	})
}

// WaitKind waits for an event of kind and returns it.
func (c *Collector) WaitKind(t testing.TB, kind event.Kind, timeout time.Duration) event.Event {
	t.Helper()
	var found event.Event
	c.WaitFor(t, timeout, func(evs []event.Event) bool {
		for _, e := range evs {
			if e.Kind == kind {
				found = e
				return true
			}
		}
		return false
	})
	return found
}

// WaitFor waits until cond holds for the events so far.
func (c *Collector) WaitFor(t testing.TB, timeout time.Duration, cond func([]event.Event) bool) []event.Event {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		evs := c.Events()
		if cond(evs) {
			return evs
		}
		select {
		case <-c.notify:
		case <-deadline.C:
			t.Fatalf("collector: condition not met within %s (%d events)", timeout, len(evs))
			return nil
		}
	}
}

// CountKind counts the events of one kind.
func CountKind(evs []event.Event, kind event.Kind) int {
	n := 0
	for _, e := range evs {
		if e.Kind == kind {
			n++
		}
	}
	return n
}
