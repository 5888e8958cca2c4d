// Package stdinring is the per-session stdin ring of the hydra protocol's
// `cat --stream`: a producer appends chunks (POST /v1/sessions/:id/stdin),
// the session's agent reads them through the hydra-acp-stdin MCP server.
//
// Cursors are absolute byte offsets from the start of the stream, so a
// reader's position survives eviction: a read below the oldest byte kept
// reports the evicted span as a gap and goes on from there. In memory mode
// only the last capacity bytes are kept; file mode also mirrors the stream
// to a file up to a soft cap, and reads below the ring come from it.
//
// A Ring is safe for concurrent use. Nothing here blocks but Wait, which
// belongs to the caller's goroutine (an HTTP handler), never an actor.
//
// Rings are bounded, and Wait is the long poll a reader blocks on until
// bytes arrive. The ring's REST producer routes live here too.
package stdinring
