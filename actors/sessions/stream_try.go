package sessions

import "github.com/troupehq/troupe/persistence/event"

// TryNext returns the next event if one is already waiting, without
// blocking, so that a reader can write what arrived together in one go.
func (s *Stream) TryNext() (event.Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return event.Event{}, false
	}
	e := s.queue[0]
	s.queue = s.queue[1:]
	return e, true
}
