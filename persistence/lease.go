package persistence

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"
)

// A session has one owner process at a time: the one whose store holds its
// lease. Only the owner writes the session's events, so two processes can
// never both assign seqs, run its tools or "recover" each other's live
// runs. Readers (replay, `troupe events --follow`) need no lease.
//
// Leases are taken, checked, renewed and released inside the writer's own
// transactions (see Batch), so they cost no extra commit on the hot path.
// A lease passes to another process only when its holder is provably gone:
// its heartbeat is older than the TTL, or it ran on this host and its
// process no longer exists. Each time it passes its epoch grows (migration
// 0014), and every write is checked against the lease in its own
// transaction: a holder that stalled past its TTL (a process frozen, a
// cluster member partitioned away) finds, when it comes back, that its
// writes are refused with a *FencedError and nothing of them written.

// DefaultLeaseTTL is how long a lease outlives its last heartbeat.
const DefaultLeaseTTL = 30 * time.Second

// ErrLeaseLost answers writes for a session whose lease another process
// took (this process stalled past the TTL): nothing of them was written.
// The error a commit reports is a *FencedError, which matches it.
var ErrLeaseLost = errors.New("session lease lost to another process")

// FencedError refuses the writes of a session this process does not hold
// the lease of at the epoch they were made under: another owner took it
// over (Owner names it, "" when it released it since), or this process
// lost it and claimed it again (Current is past Epoch). errors.Is matches
// ErrLeaseLost, the one name callers map.
type FencedError struct {
	SessionID string
	// Epoch is the epoch the writes were made under (0: not named by
	// the batch, nor known to this process).
	Epoch int64
	// Current is the lease's epoch in the store; Owner its holder's id.
	Current int64
	Owner   string
}

func (e *FencedError) Error() string {
	holder := "no owner"
	if e.Owner != "" {
		holder = "owner " + e.Owner
	}
	return fmt.Sprintf("%s: session %s writes under lease epoch %d refused: the lease is at epoch %d, %s",
		ErrLeaseLost, e.SessionID, e.Epoch, e.Current, holder)
}

func (e *FencedError) Unwrap() error { return ErrLeaseLost }

// Owner identifies a process that writes to the store.
type Owner struct {
	ID      string // random per process: a restarted process is a new owner
	PID     int
	Host    string
	Started int64 // the process's start time as the OS counts it; 0 unknown
	Command string
}

// ThisProcess describes the calling process as an owner running command.
func ThisProcess(command string) Owner {
	var b [8]byte
	_, _ = rand.Read(b[:])
	host, _ := os.Hostname()
	pid := os.Getpid()
	return Owner{ID: hex.EncodeToString(b[:]), PID: pid, Host: host, Started: procStart(pid), Command: command}
}

// Holder is a lease as the store records it.
type Holder struct {
	Owner
	SessionID  string
	AcquiredAt time.Time
	Heartbeat  time.Time
	// Epoch is the lease's fencing epoch (see FencedError).
	Epoch int64
}

// LeaseHeldError refuses a claim on a session another live process holds.
type LeaseHeldError struct {
	Holder Holder
}

func (e *LeaseHeldError) Error() string {
	h := e.Holder
	where := fmt.Sprintf("troupe pid %d", h.PID)
	if host, _ := os.Hostname(); h.Host != host {
		where += " on host " + h.Host
	}
	if h.Command != "" {
		where += " (" + h.Command + ")"
	}
	return fmt.Sprintf("session %s is running in %s; wait for it or use `troupe events %s --follow`",
		h.SessionID, where, h.SessionID)
}

// gone reports whether the holder can no longer write: its heartbeat
// lapsed, or it ran on this host and its process is dead. The start time
// tells a reused pid (ours included) from the holder; another runtime in
// this very process counts as alive.
func (h Holder) gone(self Owner, now time.Time, ttl time.Duration) bool {
	if now.Sub(h.Heartbeat) > ttl {
		return true
	}
	return h.Host == self.Host && !processAlive(h.PID, h.Started)
}

// claim takes the lease of session for s.owner unless another live process
// holds it; then it returns that holder. Taken from no one (a lease never
// held, released, or held by a process that is gone), the lease's epoch
// grows by one; this process's own lease keeps its epoch. It returns the
// epoch this process holds the lease at.
func (s *Store) claim(ctx context.Context, tx *sql.Tx, session string, now time.Time) (*Holder, int64, error) {
	if s.d == postgresDialect {
		// A row to lock, for a session never leased: two members claiming
		// it at once then queue on the row instead of both inserting.
		if _, err := tx.StmtContext(ctx, s.stmts.leaseSeed).ExecContext(ctx, session); err != nil {
			return nil, 0, fmt.Errorf("claim session %s: %w", session, err)
		}
	}
	h, err := leaseOf(ctx, tx.StmtContext(ctx, s.stmts.leaseRow), session)
	if err != nil {
		return nil, 0, err
	}
	if h != nil && h.ID != "" && h.ID != s.owner.ID && !h.gone(s.owner, now, s.leaseTTL) {
		return h, 0, nil
	}
	acquired, epoch := now, int64(1)
	switch {
	case h != nil && h.ID == s.owner.ID:
		acquired, epoch = h.AcquiredAt, h.Epoch
	case h != nil:
		epoch = h.Epoch + 1
	}
	o := s.owner
	_, err = tx.StmtContext(ctx, s.stmts.claim).ExecContext(ctx, session, o.ID, o.PID, o.Host, o.Started, o.Command, acquired.UnixNano(), now.UnixNano(), epoch)
	if err != nil {
		return nil, 0, fmt.Errorf("claim session %s: %w", session, err)
	}
	return nil, epoch, nil
}

const leaseRowSQL = `SELECT session_id, owner, pid, host, started, command, acquired_at, heartbeat, epoch
	FROM leases WHERE session_id = ?`

// leaseOf reads session's lease row through q, leaseRowSQL prepared; a
// released lease is a row whose owner is "".
func leaseOf(ctx context.Context, q *sql.Stmt, session string) (*Holder, error) {
	var h Holder
	var acquired, beat int64
	err := q.QueryRowContext(ctx, session).
		Scan(&h.SessionID, &h.ID, &h.PID, &h.Host, &h.Started, &h.Command, &acquired, &beat, &h.Epoch)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lease of %s: %w", session, err)
	}
	h.AcquiredAt, h.Heartbeat = time.Unix(0, acquired).UTC(), time.Unix(0, beat).UTC()
	return &h, nil
}

// Lease reads who holds session, or nil when no process does.
func (s *Store) Lease(ctx context.Context, session string) (*Holder, error) {
	q, err := s.reader.PrepareContext(ctx, s.d.bind(leaseRowSQL))
	if err != nil {
		return nil, fmt.Errorf("read lease of %s: %w", session, err)
	}
	defer q.Close()
	h, err := leaseOf(ctx, q, session)
	if err != nil || h == nil || h.ID == "" {
		return nil, err
	}
	return h, nil
}

// Owner is the process identity this store writes as; the zero Owner when
// it was opened without one (then leases are not used).
func (s *Store) Owner() Owner { return s.owner }

// releaseAll gives up every lease this process holds (keeping each row's
// epoch); Close calls it once the writer actor has stopped, so a clean
// exit hands sessions over at once.
func (s *Store) releaseAll() error {
	if s.owner.ID == "" {
		return nil
	}
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	s.leases.invalidate()
	if _, err := s.writer.Exec(s.d.bind(releaseAllSQL), s.owner.ID); err != nil {
		return fmt.Errorf("release leases: %w", err)
	}
	return nil
}

// releaseSQL and releaseAllSQL give leases up: the row stays, its owner
// "", so that the next claim takes the epoch on from it.
const (
	releaseSQL    = "UPDATE leases SET owner = '' WHERE session_id = ? AND owner = ?"
	releaseAllSQL = "UPDATE leases SET owner = '' WHERE owner = ?"
)
