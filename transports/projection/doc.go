// Package projection is the projection kit: the one fold of a session's
// canonical events into what every protocol shows of it. A View holds the
// session's settings, cwd and title, its pending prompts (event.Pending,
// the fold the engine's conversation uses too), the runs under way with
// their current step, the message that step streams, its tool calls (name,
// category, arguments, state, permission, output), usage per step, run and
// session, the compaction under way and the points a fork can start from.
//
// A protocol is a projector: it applies each event to its View and turns
// the Change that comes back, read together with the View, into its own
// lines. The View decodes each event once and says what it touched (the
// run, the step, the call, the prompt delivered, the streamed block), so no
// projector re-derives runs, calls or their states from the log.
//
// It owns the View and its fold. It must not do I/O, reach actors,
// sessions or the store, or know any protocol's shapes: it is pure, the
// same live and on replay, and tested without actors. The hot path is
// message.delta: a View decodes one only when Deltas is set (a projector
// replaying history leaves it off, and a delta then costs a comparison),
// into a buffer of its own, so folding it allocates nothing beyond the
// decoded strings and the text appended to its block.
package projection
