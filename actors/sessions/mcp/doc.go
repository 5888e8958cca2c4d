// Package mcp is the client side of the Model Context Protocol for a
// session: one actor per MCP server the session was created with
// (ACP's mcpServers), which connects to it, lists its tools and hands them
// out as tools.Tool values of category mcp.
//
// The actor owns its server connection and, for a stdio server, the child
// process, which runs in an actors/process child actor: its own process
// group, a parent-death signal, a watcher that kills the group if troupe
// dies, its leftovers killed when it exits. The SDK's CommandTransport is
// not used because it would own the exec.Cmd; the process actor hands over
// stdin and stdout for the SDK's IOTransport instead. On Stopping or
// Restarting the actor closes the session and ends the child as the MCP
// spec asks (EOF on stdin, then SIGTERM, then SIGKILL); the process actor,
// stopped with it, finishes the job if that takes longer. Connecting and
// closing run in goroutines; Receive never waits on the network except for
// a short bounded wait while stopping.
//
// A server that drops (its program exits, its HTTP session ends) is not a
// failure of the actor: it starts the program and connects again after a
// delay that doubles while the drops continue (see reconnect), and requests
// wait for the new connection meanwhile. A server that never comes up is
// reported once (a warning and a *Status to the parent) and retried
// quietly. notifications/progress reach the call they name as cumulative
// text; after notifications/tools/list_changed the actor lists the tools
// again into the session's Toolset, and the call that caused the change
// answers only once that is done, so the model's next request offers the
// new tools.
//
// It must not touch the session's log, approval policy or tool registry:
// the session asks for the tools with GetTools, reads the Toolset at each
// step, writes the *Status it is sent, and decides whether each call may
// run. A returned tool reaches the server through the
// actor that made it, so it keeps working across a restart of that actor
// and reports an error result once the actor is gone.
//
// Names the model sees are "<server>__<tool>"; see ToolName.
//
// A connection that fails is restarted with backoff (runtime/backoff).
package mcp
