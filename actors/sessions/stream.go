package sessions

import (
	"context"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
)

// Stream is a subscription read from plain Go code: events in seq order,
// with no gap and no duplicate. Its forwarder actor never blocks (events
// wait in memory until read), so a slow reader cannot stall the session.
type Stream struct {
	client *Client
	id     string
	pid    *actor.PID
	sub    *actor.PID

	mu     sync.Mutex
	queue  []event.Event
	closed string
	notify chan struct{}
}

// Stream subscribes to session id from seq from (or live only).
func (c *Client) Stream(ctx context.Context, id string, from int64, liveOnly bool) (*Stream, error) {
	s := &Stream{client: c, id: id, notify: make(chan struct{}, 1)}
	s.pid = c.root.Spawn(actor.PropsFromFunc(s.receive))
	sub, err := c.Subscribe(ctx, id, from, liveOnly, s.pid)
	if err != nil {
		c.root.Stop(s.pid)
		return nil, err
	}
	s.sub = sub.Subscription
	return s, nil
}

func (s *Stream) receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *session.Events:
		s.mu.Lock()
		s.queue = append(s.queue, m.Events...)
		s.mu.Unlock()
	case *session.Closed:
		s.mu.Lock()
		s.closed = m.Reason
		s.mu.Unlock()
	default:
		actorlog.Unhandled(actorlog.For(ctx, "session", s.id), ctx)
		return
	}
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// ErrClosed is returned by Next once the subscription ended and every event
// before the end was read.
type ErrClosed struct{ Reason string }

func (e ErrClosed) Error() string { return "subscription closed: " + e.Reason }

// Next returns the next event, waiting for one until ctx ends.
func (s *Stream) Next(ctx context.Context) (event.Event, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			e := s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return e, nil
		}
		closed := s.closed
		s.mu.Unlock()
		if closed != "" {
			return event.Event{}, ErrClosed{Reason: closed}
		}
		select {
		case <-s.notify:
		case <-ctx.Done():
			return event.Event{}, ctx.Err()
		}
	}
}

// Close ends the subscription and the forwarder.
func (s *Stream) Close() {
	if s.sub != nil {
		s.client.Unsubscribe(s.id, s.sub)
	}
	s.client.root.Stop(s.pid)
}
