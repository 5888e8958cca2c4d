// Package agentmcp serves the daemon's agent-facing MCP servers of the
// hydra protocol over Streamable HTTP: /mcp/hydra-acp-stdin (the session's
// stdin ring, see stdinring) and /mcp/hydra-acp-recall (the session's
// history from before its last compaction).
//
// They sit outside the daemon's bearer check: each request carries the
// per-session capability token minted when the session was created and
// embedded in its mcpServers descriptor, and is served for that session
// alone. The token is an HMAC of the session id under the daemon's service
// token, so it needs no storage and survives a daemon restart.
package agentmcp
