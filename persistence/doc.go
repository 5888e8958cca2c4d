// Package persistence owns the SQLite event store: the schema and its
// migrations, the one writer connection, the reader pool, committing batches
// of events atomically and streaming a session's log back in order, and the
// session leases that give each session one owner process at a time, and
// SQLite's integrity check over a read-only connection (troupe doctor).
//
// It stores events as opaque kinds and JSON payloads and must not interpret
// them (that is package event and the session actor). It is not an actor:
// the store writer actor (actors/storewriter) is the only caller of Commit;
// Delete and Import (a whole session in one transaction) take the same
// mutex, so that one goroutine at a time owns the writer connection.
package persistence
