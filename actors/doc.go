// Package boot boots troupe's actor system and owns its lifecycle: the
// data home, the store, the supervision tree (store writer, sessions
// supervisor, transports supervisor, and the transports commands start
// under it), logging, and the ordered shutdown.
//
// It wires actors together and must not contain their logic: sessions,
// transports and tools live in their own packages.
//
// It also owns the signals the process answers, and LazyServers, the
// llama-server supervisor a command without a daemon starts on first use.
package actors
