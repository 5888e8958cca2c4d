package session

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence/event"
)

// flushAppends is the session's note to itself to send what it has
// committed to since the last send. It goes to the back of the mailbox, so
// every event already waiting there (a burst of deltas from the stream
// goroutine) is folded first and joins the same Append: one message to the
// writer and one Committed back per burst instead of per event, for one
// extra pass through the mailbox.
type flushAppends struct{ gen uint64 }

// maxUnsent sends a burst on before its flush comes round: a stream that
// outpaces the session would otherwise hold everything back until the
// mailbox drains, leaving the writer idle and then handing it one huge
// commit.
const maxUnsent = 64

// queueAppend holds evs (and a pending snapshot change) for the next
// flush, asking for one if none is queued.
func (s *session) queueAppend(ctx actor.Context, evs []event.Event) {
	s.unsent = append(s.unsent, evs...)
	s.unsentDue = true
	if len(s.unsent) >= maxUnsent {
		s.flush(ctx)
	}
	if s.flushQueued || !s.unsentDue {
		return
	}
	s.flushQueued = true
	ctx.Send(ctx.Self(), &flushAppends{gen: s.gen})
}

func (s *session) onFlush(ctx actor.Context, m *flushAppends) {
	if m.gen != s.gen {
		return // queued by an incarnation that has since recovered
	}
	s.flushQueued = false
	s.flush(ctx)
}

// flush sends whatever is held, at once: also before any other message to
// the writer, which must not overtake the events folded before it (a
// Drain barrier, a status, a release).
func (s *session) flush(ctx actor.Context) {
	if !s.unsentDue {
		return
	}
	evs := s.unsent
	s.unsent, s.unsentDue = nil, false
	s.sendAppend(ctx, evs)
}

// dropUnsent forgets what is held, as recovery rebuilds the state they
// were folded into from the store.
func (s *session) dropUnsent() {
	s.unsent, s.unsentDue, s.flushQueued = nil, false, false
}
