// Package queue owns a session's prompt queue as an actor, a child of the
// session: the prompts waiting (in order) and the one running, folded from
// the log's prompt and run events (State, the same pending-prompt fold,
// event.Pending, the conversation and the transports use).
//
// It schedules the next run when nothing runs (StartRun to its session),
// applies a client's cancel, update and amend to a waiting entry (with the
// hydra reasons when the entry is running or unknown), and hands the
// running turn the messages it takes (TakeMessages): steering at a tool
// boundary, steering then follow-ups at the end of a run, one at a time or
// all, per the session's modes; what a turn could not deliver comes back
// (Returned) to the head of the queue.
//
// It never writes the log itself: every event goes to its session as an
// *Emit, and it is the only writer of those events, so its own view is
// exact. It imports only the event schema and actorlog: it must not reach
// the store, the turn or the transports.
package queue
