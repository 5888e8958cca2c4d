// Package storewriter owns the store's one writer connection as an actor.
//
// Sessions send it their events; it groups whatever arrives while the
// previous transaction is committing into the next transaction (group
// commit), and tells each sender how far its log is durable. Session leases
// ride in the same transactions: claims, releases and the heartbeat that
// keeps this process's leases alive. It must not
// assign seqs or interpret events: that is the session's job.
//
// It is the one group commit of the process.
package storewriter
