package persistence

import (
	"context"
	"errors"
	"fmt"
)

// ErrHasForks refuses to delete a session other sessions were forked
// from: their conversations start with its log.
var ErrHasForks = errors.New("other sessions are forked from it")

// DeleteSession removes a session's events, lease and row in one
// transaction; ErrSessionNotFound when it has no row. Its actor must be stopped
// first, or it would write again.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	defer func() { _ = tx.Rollback() }()
	var forks int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sessions WHERE parent_id = ?", id).Scan(&forks); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if forks > 0 {
		return fmt.Errorf("delete session %s: %w (%d)", id, ErrHasForks, forks)
	}
	for _, q := range []string{"DELETE FROM events WHERE session_id = ?", "DELETE FROM leases WHERE session_id = ?"} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return fmt.Errorf("delete session %s: %w", id, err)
		}
	}
	res, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE id = ?", id)
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("delete session %s: %w", id, ErrSessionNotFound)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}
