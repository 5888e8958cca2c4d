package run

import (
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/tooltext"
)

// Emit asks the session to append events, in order. Token names the turn
// that sent it: a message from a turn that has since been stopped (still in
// the mailbox across a restart) must not reach the log.
type Emit struct {
	RunID  string
	Token  uint64
	Events []event.Draft
}

// Finished tells the session the run is over (its run.ended was emitted
// just before).
type Finished struct {
	RunID      string
	Token      uint64
	StopReason string
}

// Cancel aborts the run: the LLM request and running tools are cancelled,
// partial output is kept, and the run ends with stop reason cancelled.
type Cancel struct {
	Reason string
}

// Decide resolves a pending permission request.
type Decide struct {
	ToolCallID string
	Allow      bool
	Always     bool // allow this category for the rest of the session
	OptionID   string
	Reason     string
	By         string
}

// DecideResult answers Decide.
type DecideResult struct {
	Err error
}

// AbortRetry stops a pending automatic retry; the run ends with the error.
type AbortRetry struct{}

// AllowCategory tells the session a client chose "always" for a category.
type AllowCategory struct {
	Category string
}

// internal messages
type (
	streamDone struct {
		attempt int
		resp    *llm.Response
		err     error
		parsed  tooltext.Result
	}
	retryNow struct{ attempt int }
)
