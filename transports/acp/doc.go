// Package acp is the Agent Client Protocol (with hydra's multi-client
// extensions, the hydra daemon protocol) as a transport:
// the JSON-RPC handlers are written once, in one actor per connection, and
// served over any framing: newline-delimited JSON-RPC on stdin/stdout
// (troupe acp, StdioProps) and one message per WebSocket text frame
// (WebSocketHandler).
//
// A connection attaches to sessions (session/new, load, resume, attach);
// each attachment is a subscription from seq 1 (or, after_message an
// update id or replaying no history, from past the attach snapshot kept
// in the store through the facade: attachsnap.go) whose events are folded into a
// projection.View and projected into session/update notifications with
// transports/acpupdate, the mapping REST's history shares.
// History up to the subscription's replay point is coalesced and sent
// before the answer; what follows is live. Every attached connection sees
// every event, so the many-clients rules (prompt_received, turn_complete,
// permission_resolved, first answer wins) follow from each connection
// knowing which prompts and decisions were its own.
//
// It also owns permission requests, the prompt-queue surface and what
// happens to a slow client.
//
// Every method a connection serves is one row of methods.go's table: its
// handler, who may call it (clients, extensions, transformers), whether a
// read-only attachment is refused it, whether a session's chain sees it
// first. The methods of the daemon's processes (transformers' chain and
// workers, extensions' tools and slash commands) are served here too; what
// the connections share about those processes (registrations, chains,
// links, gates, claims, queued commands) is transports/acp/pipeline's.
//
// Like every transport it reaches sessions only through the session facade
// (actors/sessions), never the engine's actors or the store;
// transports/imports_test.go keeps it so.
package acp
