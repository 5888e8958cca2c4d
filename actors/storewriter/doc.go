// Package storewriter owns the store's one writer connection as an actor.
//
// Sessions send it their events; it groups whatever arrives while the
// previous transaction is committing into the next transaction (group
// commit), and tells each sender how far its log is durable. It must not
// assign seqs or interpret events: that is the session's job.
package storewriter
