// Package rpc is the indusagi (pi) RPC protocol over stdio: `troupe --mode
// rpc`. It owns one connection per process: the command decoder, the
// connection actor that turns commands into session requests, and the
// projection of a session's canonical events into the protocol's events
// (agent_*, turn_*, message_*, tool_execution_*, auto_compaction_*,
// auto_retry_*), written through the one stdout writer of transports/stdio.
// The projection is a projector on the projection kit's view
// (transports/projection), which folds the runs, steps, tool calls and
// prompts; this package keeps what is pi's own: its message objects, the
// turn being written and the streaming message kept encoded (project*.go,
// stream*.go).
//
// It reaches sessions only through the session facade (actors/sessions):
// requests, subscriptions, the reads of past events a fork inherits, the
// host's own bash commands and the model catalog. It must not write
// anything to stdout but whole protocol lines, and never invents state:
// everything it reports is folded from the session's events.
//
// It imports only the session facade, the event schema, the transports
// supervisor's contract and its sibling transports; transports/imports_test.go
// keeps it so.
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
// As the spec and pi have it (Config.Partials, `--partials full`, the
// default), `message` and `assistantMessageEvent.partial` are the message
// so far: every content block with its text, and an open tool call with
// `partialArgs`, the raw arguments so far, and `arguments`, what of them
// parses once the open strings and containers are closed (argsPrefix). So
// the output grows with the square of the reply's length. The message is
// kept encoded as it grows (closed blocks, the open block's escaped text),
// so a delta costs its own length plus copying the partial into its line,
// never a marshal of the message (BenchmarkProjectReply).
//
// `--partials skeleton` keeps the lines of constant size for clients that
// read only the deltas: role, api, provider, model, timestamp and one entry
// per block with its type (and a tool call's id and name), no text. The
// text is then in the deltas, whole in each block's *_end event (`content`,
// `toolCall`) and in message_end.
//
// Deltas are merged when the connection falls behind, which a client
// concatenating them cannot tell: consecutive deltas of one block that
// reach it in one batch become one line, and while the stdout writer has
// more than a MiB queued, deltas wait and go out as one line, with the
// partial as it is by then, when the writer has caught up or before any
// other line (meter). This bounds memory when the client reads slower than
// full partials are made (BenchmarkRPCPartials).
//
// # Lifetime
//
// The connection is a transport actor (Props) under the runtime's
// transports supervisor, with its stdout writer as its child. It asks
// sessions through the facade's Async only, so every answer comes back on
// its mailbox and no request blocks it; the host's bash and file reads and
// writes run in goroutines that answer the same way. State commands
// (get_state, get_messages, get_fork_messages, stats) are answered from
// the connection's fold without a round trip, so they answer at once even
// while a run streams. At the end of stdin the connection finishes what it
// owes (answers, and the run in progress, so a piped script gets its whole
// output) and reports Done with 0; on transports.Terminate (the runtime's
// shutdown after SIGTERM) the run is aborted, its end written, and it
// reports 143 (the command makes it 130 when the signal was SIGINT).
package rpc
