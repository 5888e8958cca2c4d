// Package rpc is the indusagi (pi) RPC protocol over stdio: `troupe --mode
// rpc`. It owns one connection per process: the command decoder, the
// connection actor that turns commands into session requests, and the
// projection of a session's canonical events into the protocol's events
// (agent_*, turn_*, message_*, tool_execution_*, auto_compaction_*,
// auto_retry_*), written through the one stdout writer of transports/stdio.
//
// It must not touch the store's log other than through the sessions client
// (reads of past events for forks and replay go through persistence's
// read-only Load), must not write anything to stdout but whole protocol
// lines, and never invents state: everything it reports is folded from the
// session's events.
//
// # Ordering
//
// A response that caused events is written after them: prompt, steer and
// follow_up answer when their prompt.queued event is projected, abort when
// the run's agent_end is written, and settings changes once the connection's
// fold has reached the seq they committed. So a client that sends get_state
// after a response always sees its effect.
//
// # How much of `partial` a message_update carries
//
// pi sends the whole partial message on every delta, so the output grows
// with the square of the reply's length. Here `message` and
// `assistantMessageEvent.partial` carry the message's skeleton: role, api,
// provider, model, timestamp and one entry per content block with its type
// (and a tool call's id and name) but without its text. The text arrives in
// the deltas, whole in each block's *_end event (`content`, `toolCall`) and
// in message_end. Each delta line is therefore of constant size, which keeps
// forwarding linear (see BenchmarkRPC). When the connection falls behind,
// consecutive deltas of one block that reach it in one batch are merged
// into one text_delta line; a client that concatenates deltas sees the same
// text.
//
// # Lifetime
//
// State commands (get_state, get_messages, get_fork_messages, stats) are
// answered from the connection's fold without a round trip, so they answer
// at once even while a run streams. At the end of stdin the connection
// finishes what it owes (answers, and the run in progress, so a piped
// script gets its whole output) and Serve returns 0; on SIGTERM the run is
// aborted, its end written, and Serve returns 143. The store is then closed
// by the caller's runtime shutdown.
package rpc
