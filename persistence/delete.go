package persistence

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrHasForks refuses to delete a session other sessions were forked
// from: their conversations start with its log.
var ErrHasForks = errors.New("other sessions are forked from it")

// Delete removes session id from the store: its events, its snapshot and
// its lease, in one transaction. A session another live process holds is
// refused with *LeaseHeldError, one others were forked from with
// ErrHasForks, and ErrSessionNotFound when it has no snapshot. Its actor
// must be stopped first, or it would write again. It writes on the
// writer's connection, serialised with the writer's commits.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := s.writable(); err != nil {
		return err
	}
	// The lease memory (heldcache.go) cannot see this connection's own
	// writes: forget it, under the mutex that orders it with commits.
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	defer s.leases.invalidate()
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	defer tx.Rollback()
	if err := s.deleteIn(ctx, tx, id, time.Now()); err != nil {
		if held := (*LeaseHeldError)(nil); errors.As(err, &held) {
			return err // its own words name the holder
		}
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// deleteIn removes session id's events, lease and snapshot in tx, after
// claiming its lease: refused with *LeaseHeldError while another live
// process holds it, ErrHasForks when sessions were forked from it,
// ErrSessionNotFound when it has no snapshot.
func (s *Store) deleteIn(ctx context.Context, tx *sql.Tx, id string, now time.Time) error {
	h, _, err := s.claim(ctx, tx, id, now)
	if err != nil {
		return err
	}
	if h != nil {
		return &LeaseHeldError{Holder: *h}
	}
	var forks int
	if err := tx.QueryRowContext(ctx, s.d.bind("SELECT count(*) FROM sessions WHERE parent_id = ?"), id).Scan(&forks); err != nil {
		return err
	}
	if forks > 0 {
		return fmt.Errorf("%w (%d)", ErrHasForks, forks)
	}
	// Events and fold snapshots first: they reference the session's row.
	for _, q := range []string{"DELETE FROM events WHERE session_id = ?", "DELETE FROM snapshots WHERE session_id = ?", "DELETE FROM leases WHERE session_id = ?"} {
		if _, err := tx.ExecContext(ctx, s.d.bind(q), id); err != nil {
			return err
		}
	}
	res, err := tx.ExecContext(ctx, s.d.bind("DELETE FROM sessions WHERE id = ?"), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrSessionNotFound
	}
	return nil
}
