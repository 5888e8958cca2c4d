// Package turn owns one run: the agent loop for one prompt. It streams each
// LLM call (off its mailbox), turns the reply into canonical events, asks for
// approval where the mode requires it, runs each tool call as a child actor,
// takes steering and follow-up messages from the queue at the points the
// protocol defines, retries transient provider errors, and ends the run with
// a canonical stop reason.
//
// It never writes the log itself: every event goes to its session as an
// *Emit, in order. It keeps no state that outlives the run; on a restart the
// session rebuilds the conversation from the log and starts a new turn.
package run
