// Package agentmcp serves the daemon's agent-facing MCP servers of the
// hydra protocol over Streamable HTTP: /mcp/hydra-acp-stdin (the session's
// stdin ring, see stdinring) and /mcp/hydra-acp-recall (the session's
// history from before its last compaction).
//
// They sit outside the daemon's bearer check: each request carries the
// per-session capability token embedded in the session's mcpServers
// descriptor, and is served for that session alone. The token is an HMAC
// of the session id under a key the daemon draws as it starts and keeps in
// memory only (NewRunTokens), so it needs no storage and dies with the
// daemon's run: one written down (the store's session.created, an export,
// a log, a copy of the store) is refused by the next daemon, which mints
// the session's entries anew each time the session starts its MCP clients.
//
// It answers HTTP through transports/httpjson and must not import
// transports/rest or anything under actors/
// (TestSmallHTTPServersLinkNoREST).
package agentmcp
