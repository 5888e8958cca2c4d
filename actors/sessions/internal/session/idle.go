package session

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// idleCheck is sent by the session's own idle timer. protoactor's
// SetReceiveTimeout is not used: its timer goroutine writes the actor's
// context while the actor runs (a data race in the pinned version), so the
// session keeps its own clock and timer and only messages cross goroutines.
type idleCheck struct{}

// idleClock tracks the last activity and owns the timer.
type idleClock struct {
	last  time.Time
	timer *time.Timer
}

// DefaultIdleTimeout is how long a session with nothing to do stays live
// when its Config names no IdleTimeout.
const DefaultIdleTimeout = 10 * time.Minute

// idleAfter is how long the session idles before it passivates; 0 never.
func (c Config) idleAfter() time.Duration {
	switch {
	case c.IdleTimeout == 0:
		return DefaultIdleTimeout
	case c.IdleTimeout < 0:
		return 0
	}
	return c.IdleTimeout
}

// touch records activity; the check that fires later measures from here.
func (s *session) touch() { s.idle.last = s.cfg.Now() }

// armIdle schedules the next idle check after d.
func (s *session) armIdle(ctx actor.Context, d time.Duration) {
	if s.cfg.idleAfter() == 0 || s.stopping {
		return
	}
	if s.idle.timer != nil {
		s.idle.timer.Stop()
	}
	self, root := ctx.Self(), ctx.ActorSystem().Root
	s.idle.timer = time.AfterFunc(d, func() { root.Send(self, &idleCheck{}) })
}

// onIdleCheck passivates after IdleTimeout without activity, or re-arms
// for the time that is left.
func (s *session) onIdleCheck(ctx actor.Context) {
	left := s.cfg.idleAfter() - s.cfg.Now().Sub(s.idle.last)
	if left > 0 {
		s.armIdle(ctx, left)
		return
	}
	s.requestPassivation(ctx, true)
	s.armIdle(ctx, s.cfg.idleAfter())
}

func (s *session) stopIdle() {
	if s.idle.timer != nil {
		s.idle.timer.Stop()
	}
}
