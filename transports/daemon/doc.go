// Package daemon is the HTTP side of `troupe daemon`: one listener
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
// It owns the /v1/auth/* routes and mounts the REST API (transports/rest),
// the ACP WebSocket handler and the MCP handler (/mcp) it is given; it
// holds no session state.
//
// It also owns the limit on login attempts (rate), the wrapper every
// authenticated route goes through (Auth.wrap), and the bound on the
// connections open under each credential.
package daemon
