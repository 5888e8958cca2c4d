// Package mcp is the client side of the Model Context Protocol for a
// session: one actor per MCP server the session was created with
// (ACP's mcpServers), which connects to it, lists its tools and hands them
// out as tools.Tool values of category mcp.
//
// The actor owns its server connection and, for a stdio server, the child
// process: it starts it in its own process group with a parent-death
// signal, and on Stopping or Restarting closes the session, which ends the
// child. Connecting and closing run in goroutines; Receive never waits on
// the network except for a short bounded wait while stopping.
//
// It must not touch the session's log, approval policy or tool registry:
// the session asks for the tools with GetTools, registers them and decides
// whether each call may run. A returned tool reaches the server through the
// actor that made it, so it keeps working across a restart of that actor
// and reports an error result once the actor is gone.
//
// Names the model sees are "<server>__<tool>"; see ToolName.
package mcp
