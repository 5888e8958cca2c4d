package persistence

import (
	"context"
	"fmt"
	"time"
)

// Delete removes session id from the store: its events, its snapshot and
// its lease. A session another live process holds is refused with
// *LeaseHeldError; ErrSessionNotFound when it has no snapshot. It writes on
// the writer's connection, serialised with the writer's commits.
func (s *Store) Delete(ctx context.Context, id string) error {
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
	h, err := s.claim(ctx, tx, id, time.Now())
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if h != nil {
		return &LeaseHeldError{Holder: *h}
	}
	// Events first: they reference the snapshot.
	if _, err := tx.ExecContext(ctx, "DELETE FROM events WHERE session_id = ?", id); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	res, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE id = ?", id)
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("delete session %s: %w", id, ErrSessionNotFound)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM leases WHERE session_id = ?", id); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}
