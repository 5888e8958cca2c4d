package queue

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence/event"
)

// Enqueue adds a message. Position is head | tail (default) | after (with
// After). The reply, sent once the prompt.queued event is durable, is
// *Enqueued.
type Enqueue struct {
	Prompt   event.Prompt
	Position string
	After    string
}

// Enqueued answers Enqueue.
type Enqueued struct {
	MessageID string
	Position  int // 0: it runs now or is delivered into the running run
	Depth     int
	Err       error
}

// CancelPrompt cancels a queued (not running) prompt; the reply is *Result.
type CancelPrompt struct{ MessageID string }

// UpdatePrompt edits a queued prompt; the reply is *Result.
type UpdatePrompt struct {
	MessageID string
	Content   []event.Block
}

// AmendPrompt replaces a prompt: a queued one is edited in place; the
// running one is cancelled (its partial answer kept) and the replacement
// runs next. The reply is *Result.
type AmendPrompt struct {
	TargetID          string
	NewID             string
	Content           []event.Block
	ReplaceQueue      bool   // drop every entry after the target
	OnTargetCompleted string // reject (default) | send_anyway
	Client            string
}

// Result answers the mutations: OK plus a hydra reason (ok, not_found,
// already_running, target_completed, ...) and, for an amend, the id sent;
// Err when the edit could not be recorded (its commit failed).
type Result struct {
	OK        bool
	Reason    string
	MessageID string
	Err       error
}

// SetModes changes how steering and follow-up messages are taken (all |
// one-at-a-time); empty fields are unchanged.
type SetModes struct {
	Steering string
	FollowUp string
}

// TakeMessages, from the running turn, asks for steering (Steer) or
// follow-up messages. The queue answers *Messages; an empty answer means
// none.
type TakeMessages struct {
	RunID string
	Steer bool
}

// Messages answers TakeMessages: the queue has removed them and the turn
// delivers each with prompt.delivered.
type Messages struct {
	IDs      []string
	Contents [][]event.Block
	Delivery string
}

// Returned gives the queue back messages it handed to a turn that ended
// before delivering them (a cancel raced the answer), so none is lost.
type Returned struct {
	Messages Messages
}

// RunEnded tells the queue the running prompt finished.
type RunEnded struct {
	RunID     string
	Cancelled bool // its stop reason was cancelled
}

// GetState answers with *StateReply.
type GetState struct{}

// StateReply answers GetState.
type StateReply struct{ State State }

// Emit asks the session to append events; after they commit, the session
// sends Reply to ReplyTo (if set).
type Emit struct {
	Events  []event.Draft
	Reply   any
	ReplyTo *actor.PID
}

// StartRun asks the session to start the run of a queued prompt.
type StartRun struct{ MessageID string }

// CancelRun asks the session to cancel the running run.
type CancelRun struct {
	RunID  string
	Reason string
}
