// Package daemonclient owns finding a running `troupe daemon` and talking
// to it as a client: its REST API (/v1, errors decoded from the protocol's
// {"error": ...}) and ACP over its WebSocket (/acp, bearer auth). It is
// what `troupe session …` is built on, and it must not import the runtime
// (actors, store, engine): a client links none of the server.
//
// Discover reads the daemon's address and service token from the data home
// ($TROUPE_HOME/daemon.addr and auth-token, the files the daemon writes),
// unless a URL and a token are given, and checks /v1/health answers; when
// none does, its error names `troupe daemon start`.
package daemonclient
