// Package session owns one session actor: its log (the canonical events it
// assigns seqs to), the state folded from that log, and its subscriptions.
//
// The session is the only writer of its log once it has one (an import
// writes a whole log, sealed by SealImport, before any session hosts it).
// It never touches SQLite for
// writing (the store writer actor commits for it) and never blocks its
// mailbox: recovery reads the store in a goroutine and reports back, and
// each subscriber is a child actor that replays history off the mailbox.
//
// Subscribers see only committed events, so anything a client was shown
// survives a kill -9.
package session
