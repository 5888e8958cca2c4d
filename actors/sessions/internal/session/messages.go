package session

import (
	"errors"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
)

// Errors a session answers with; transports map them to their protocol.
// ErrNotFound is the store's own, so a lookup in either says the same.
var (
	ErrNotFound = persistence.ErrSessionNotFound
	ErrExists   = errors.New("session already exists")
	ErrFailed   = errors.New("session failed and was stopped")
	ErrNoRun    = errors.New("no run is in progress")
)

// Request is implemented by the messages a client may send (through the
// sessions registry). The registry counts them so that a session is never
// passivated with a request still on its way.
type Request interface{ isRequest() }

// Create writes session.created as seq 1; the reply is *Appended.
type Create struct {
	Created event.CreatedPayload
}

// Append assigns seqs to the drafts and commits them; the reply, *Appended,
// comes once they are durable.
type Append struct {
	Events []event.Draft
}

// Appended answers Create and Append.
type Appended struct {
	FirstSeq int64
	LastSeq  int64
	Err      error
}

// Subscribe asks for the events from seq From (1 or less: from the start)
// followed by the live ones, delivered to Target as *Events, in order, with
// no gap and no duplicate. LiveOnly skips history. Weak lets the session
// passivate all the same (the subscription then ends with it): for
// watchers that follow the session only while something else keeps it
// live. The reply is *Subscribed.
type Subscribe struct {
	From     int64
	LiveOnly bool
	Weak     bool
	Target   *actor.PID
}

// Subscribed answers Subscribe. History runs to ReplayTo; live events follow.
type Subscribed struct {
	Subscription *actor.PID
	ReplayTo     int64
	Err          error
}

// Unsubscribe ends a subscription; the target then gets *Closed.
type Unsubscribe struct {
	Subscription *actor.PID
}

// GetState asks for a copy of the folded state; the reply is *StateReply.
type GetState struct{}

// StateReply answers GetState.
type StateReply struct {
	State State
	Err   error
}

// Events is what a subscriber receives: consecutive events, in seq order.
// The slice is shared between subscribers and must not be modified.
type Events struct {
	SessionID string
	Events    []event.Event
}

// Closed tells a subscriber that its subscription ended (unsubscribed, or
// the session stopped).
type Closed struct {
	SessionID string
	Reason    string
	// Moved: the subscription ended because the session's host changed
	// (a cluster member was lost, or the topology moved the session to
	// another member), not because the session stopped. It may be
	// running elsewhere already: subscribe again from the next seq and
	// nothing is missed.
	Moved bool
}

// PassivateRequest is sent by an idle session to its parent, which answers
// *Passivate only if every request it routed has been handled.
type PassivateRequest struct {
	SessionID string
	Handled   uint64
}

// Passivate tells the session to record itself cold and stop.
type Passivate struct{}

func (*Create) isRequest()      {}
func (*Append) isRequest()      {}
func (*Subscribe) isRequest()   {}
func (*Unsubscribe) isRequest() {}
func (*GetState) isRequest()    {}

// recovered is sent to self by the recovery goroutine.
type recovered struct {
	fold    fold
	missing bool
	failed  bool   // the store says so: reason is its status reason
	reason  string // why the session failed, or why its log is inconsistent
	err     error
	// from is the seq of the snapshot the fold started from, 0 for none.
	from int64
	// snapSize is that snapshot's size in bytes.
	snapSize int64
}
