package sessions

import (
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence"
)

// The errors requests answer with, for errors.Is; KindOf classifies them
// into the kinds every transport maps to its protocol through one table
// (errkind.go). A session's refusal keeps its wording in Error().
var (
	// ErrNotFound: no such session (a request other than Create, or a
	// store read).
	ErrNotFound = session.ErrNotFound
	// ErrExists: Create on a session that has a log.
	ErrExists = session.ErrExists
	// ErrFailed: the session failed too often and was stopped.
	ErrFailed = session.ErrFailed
	// ErrBusy: Compact while a run is in progress.
	ErrBusy = session.ErrBusy
	// ErrNoRun: Decide or AbortRetry with no run in progress.
	ErrNoRun = session.ErrNoRun
	// ErrNoEngine: Prompt on a runtime that hosts logs only.
	ErrNoEngine = session.ErrNoEngine
	// ErrHasForks: Delete of a session other sessions were forked from.
	ErrHasForks = persistence.ErrHasForks
	// ErrAttentionLimit: an attention flag past a session's bounds
	// (session.MaxAttention*).
	ErrAttentionLimit = session.ErrAttentionLimit
	// ErrStoreWrite: the store's file refused the request's write (an I/O
	// error, a read-only or corrupt file); nothing of it was written.
	ErrStoreWrite = persistence.ErrStoreWrite
	// ErrDiskFull: the disk holding the store is full; nothing of the
	// request was written. Every ErrDiskFull is also an ErrStoreWrite.
	ErrDiskFull = persistence.ErrDiskFull
)

// LeaseHeldError refuses a request for a session another troupe process
// hosts; it names that process.
type LeaseHeldError = persistence.LeaseHeldError

// UnreachableError reports a request that did not reach its session or
// whose answer did not come back in time (the session could not start,
// or was stopped for good, or timed out): it may or may not have taken
// effect. A session's own refusals are never wrapped in it.
type UnreachableError struct {
	Session string
	Err     error
}

func (e *UnreachableError) Error() string { return "session " + e.Session + ": " + e.Err.Error() }

func (e *UnreachableError) Unwrap() error { return e.Err }
