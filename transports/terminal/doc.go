// Package terminal owns turning the ACP session/update stream of one
// session into terminal output, and reading the person's keys: assistant
// text as it streams, thinking dimmed, one line per tool call with its
// status and duration (a coloured diff for edits), queue changes, other
// clients' prompts, a spinner while the model has not answered, and
// permission requests answered with one key.
//
// It speaks ACP as a client over any Conn (the daemon's /acp WebSocket in
// practice) and imports nothing of the runtime: what it shows is only what
// the protocol carries. The Renderer is deterministic given the updates it
// is fed (durations come from the updates' recordedAt stamps, never from
// the clock), so it is golden-tested; only the spinner reads the clock.
//
// It is deterministic given the updates (durations come from their
// recordedAt; only the spinner reads the clock), and Ctrl-C is cancel or
// detach. It imports nothing of troupe but transports/jsonrpc's wire types;
// `troupe session attach` and `troupe prompt` run it over the daemon's /acp.
package terminal
