package storewriter

import (
	"errors"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
)

// ErrStaleGeneration answers an Append from a session incarnation whose
// earlier batch failed: its seqs no longer follow the log, so writing them
// would leave a gap.
var ErrStaleGeneration = errors.New("append from a stale session generation after a failed commit")

// Append asks for events (with consecutive seqs) and an optional snapshot of
// the session row to be committed. ReplyTo receives *Committed.
type Append struct {
	SessionID string
	Gen       uint64 // the session incarnation; see ErrStaleGeneration
	// Epoch is the lease epoch the session's claim was granted at
	// (Claimed.Epoch): the store refuses the events when the lease has
	// moved past it (persistence.FencedError). 0 names none.
	Epoch   int64
	Meta    *persistence.SessionMeta
	Events  []event.Event
	ReplyTo *actor.PID
}

// Committed reports that the session's log is durable up to LastSeq, or that
// the batch failed and nothing of it was written.
type Committed struct {
	SessionID string
	Gen       uint64
	LastSeq   int64
	Err       error
}

// SetStatus changes a session's status row; the reply is *StatusSet.
type SetStatus struct {
	Change  persistence.StatusChange
	ReplyTo *actor.PID
}

// StatusSet answers SetStatus.
type StatusSet struct {
	SessionID string
	Err       error
}

// Claim takes the session's lease for this process (see persistence's
// lease.go); the reply is *Claimed, sent once the claim is committed, and so
// after everything the writer received before it: a session starting up
// uses it as its barrier before reading its log.
type Claim struct {
	SessionID string
	ReplyTo   *actor.PID
}

// Claimed answers Claim. Held is the live process that holds the lease
// instead; Err a failed commit; Epoch the lease's epoch when granted
// (0 for a store that writes without leases).
type Claimed struct {
	SessionID string
	Held      *persistence.Holder
	Epoch     int64
	Err       error
}

// Release gives the session's lease up with the next commit; a stopping
// session sends it after its last events.
type Release struct {
	SessionID string
}

// Drain is answered with *Drained (via Respond) once everything the writer
// received before it is committed. It is the barrier a restarted session
// waits on before reading its log, and the last step of shutdown.
type Drain struct{}

// Drained answers Drain.
type Drained struct{}

// batchDone is sent by the commit goroutine back to the writer.
type batchDone struct {
	batch   persistence.Batch
	replies []reply
	outcome persistence.Outcome
	err     error
}

// renewTick is the writer's own heartbeat timer firing.
type renewTick struct{}

type reply struct {
	to  *actor.PID
	msg any
}
