// Package transports is the transports supervisor and the contract every
// transport actor keeps with it.
//
// A transport is one client conversation (a stdio protocol today; each
// connection of a daemon tomorrow): an actor started under the supervisor
// with Start, whose children (its stdout writer) are supervised with it. It
// ends by reporting Done to its parent once everything it owes its client
// is written; the supervisor then stops it and hands the Done to whoever
// started it. Terminate asks it to end because the process is shutting
// down. The supervisor never restarts a transport: a conversation cut in
// the middle of a stream cannot be resumed by a fresh actor, so a crash
// stops it and is reported as its Done, with the panic as the error.
//
// The whole contract: Done, Terminate, Finish, Writes and Escalate. At
// shutdown the supervisor drains every transport.
package transports
