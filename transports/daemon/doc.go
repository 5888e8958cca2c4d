// Package daemon is `troupe daemon` as a library: Start builds the whole
// daemon from a Config (what the command's flags set) and Daemon.Shutdown
// stops it in the runtime's stage order, so the command and the tests start
// it the same way. Start boots the actor tree (actors), the llama-server
// supervisor, the plugin supervisors (spawned under the guardian), the
// transformer pipeline with the chains the store records, the slash
// commands extensions answer (commands.go: a provider in front of the
// session engine's), and the agent-facing MCP servers whose entries are
// rebased on this run's address and token (agentmcp.go). It is the one
// package under transports/ that imports actors, the guardian's package:
// it composes the tree with the transports it serves.
//
// Its HTTP side is one listener
// (loopback, or any address with TLS) that bounds the connections not yet
// authenticated, the Origin and Host checks that keep browsers on other
// sites out (DNS rebinding), and authentication as the hydra protocol
// defines it: the service token in $TROUPE_HOME/auth-token, session tokens
// minted by POST /v1/auth/login against the master password's bcrypt hash,
// their TTL, listing and revocation, and the account's limit on password
// checks. Auth.wrap is the one check every protected route uses, /acp
// included, decided from the headers before any body is read; it binds
// each connection to its credential, so that the credential's revocation
// or expiry closes it.
//
// The server owns the /v1/auth/* routes and mounts the REST API
// (transports/rest), the ACP WebSocket handler and the MCP handler (/mcp)
// it is given, and /metrics (metrics.go: Prometheus's scrape of
// runtime/metrics, with the sessions counted at scrape time, and the
// unauthenticated --metrics-listen listener); it holds no session state.
//
// It also owns the limit on login attempts (rate), the wrapper every
// authenticated route goes through (Auth.wrap), and the bound on the
// connections open under each credential.
package daemon
