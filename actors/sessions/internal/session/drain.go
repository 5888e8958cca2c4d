package session

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// drainTimeout bounds how long a stopping session waits for a cancelled
// run's end and its subscribers' last events; past it the session stops
// as it would have at once (a stuck tool, a writer that does not answer).
const drainTimeout = 10 * time.Second

// drainExpired is sent by the drain's own timer.
type drainExpired struct{}

// drainState is a passivation under way: the session stops once what it
// owes its subscribers is out.
type drainState struct {
	on    bool
	ended bool // the subscriptions were told to end
	timer *time.Timer
}

// passivate stops the session, but drains first: a run already cancelled
// (hydra-acp/session/force_cancel, session/close, a cancel then a kill)
// writes its end, everything folded is committed and published, and every
// subscription delivers what it holds before it ends (an ending
// subscription's Closed follows its last events; a stop would overtake
// them). So every attached client's prompt is answered, cancelled, before
// the session goes cold, not when it next wakes. A run nobody cancelled is
// stopped with the session, as before: its log says interrupted and the
// next incarnation resumes it. A session that cannot commit (failed, held
// by another process, still recovering) stops at once.
func (s *session) passivate(ctx actor.Context) {
	if s.drain.on {
		return
	}
	if s.failed || s.held != nil || s.recovering {
		ctx.Stop(ctx.Self())
		return
	}
	s.drain.on = true
	self, root := ctx.Self(), ctx.ActorSystem().Root
	s.drain.timer = time.AfterFunc(drainTimeout, func() { root.Send(self, &drainExpired{}) })
	s.flush(ctx)
	s.drained(ctx)
}

// drained moves the drain on: once the cancelled run has ended and all is
// committed, the subscriptions end (each after what it holds); once they
// have, the session stops.
func (s *session) drained(ctx actor.Context) {
	if !s.drain.on || s.stopping {
		return
	}
	if !s.drain.ended {
		if s.runPID != nil && s.cancelled == s.turnRun || len(s.uncommitted) > 0 {
			return
		}
		s.drain.ended = true
		for _, pid := range s.subs {
			// An ordinary message: behind the events already sent to it.
			ctx.Poison(pid)
		}
	}
	if len(s.subs) == 0 {
		ctx.Stop(ctx.Self())
	}
}

func (s *session) stopDrain() {
	if s.drain.timer != nil {
		s.drain.timer.Stop()
	}
}
