// Package conversation folds a session's canonical events into the message
// history an LLM sees: prompts, steer and follow-up messages, assistant
// messages, tool results (native or as one text message per step), user
// bash runs, and compaction summaries.
//
// It is pure: no I/O, no actors. It must not decide anything about the run
// (that is the turn actor); it only answers "what has been said".
package conversation
