// Package actors is the guardian: the root of troupe's one supervision
// tree, and the folders under it are the tree's branches. It boots the
// actor system on a data home and a store, spawns the fixed children
// (store writer, the spawners, sessions supervisor, transports supervisor)
// and those a command asks for (the llama-servers, the daemon's plugin
// supervisors), answers the signals the process takes and runs the
// ordered shutdown. LiveTree lists what runs, by id.
//
// It wires actors together and must not contain their logic: sessions,
// transports and tools live in their own packages, and nothing below it
// imports it. It also holds LazyServers, the llama-server supervisor a
// command without a daemon starts on first use.
package actors
