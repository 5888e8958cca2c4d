package persistence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// ErrSessionExists refuses an import under an id that already has a log.
var ErrSessionExists = errors.New("session already exists")

// Import is a whole session written at once: its snapshot row and its log,
// session.created first, seqs from 1 with no gap.
type Import struct {
	Meta   SessionMeta
	Events []event.Event
	// Replace deletes the session Meta.ID names in the same transaction,
	// as Delete would (refused the same ways); without it an id in use is
	// refused with ErrSessionExists.
	Replace bool
}

// Import writes a whole session in one transaction, however long its log:
// a crash at any point leaves all of it or none of it, so a retry never
// meets half an import. No lease is left behind: the session is cold, and
// whoever hosts it first claims it. It writes on the writer's connection,
// serialised with the writer's commits (which wait for it), like Delete.
func (s *Store) Import(ctx context.Context, imp Import) error {
	if err := s.writable(); err != nil {
		return err
	}
	id := imp.Meta.ID
	if err := checkImport(imp); err != nil {
		return fmt.Errorf("import session %s: %w", id, err)
	}
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	// Prepare before BEGIN: the writer pool has one connection, which the
	// transaction holds until it ends.
	if err := s.prepareInserts(len(imp.Events)); err != nil {
		return fmt.Errorf("import session %s: %w", id, err)
	}
	// The lease memory (heldcache.go) cannot see this connection's own
	// writes to the leases table: forget it.
	defer s.leases.invalidate()
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("import session %s: %w", id, err)
	}
	defer tx.Rollback()
	now := time.Now()
	if imp.Replace {
		if err := s.deleteIn(ctx, tx, id, now); err != nil {
			return fmt.Errorf("import session %s: %w", id, err)
		}
	} else {
		var n int
		if err := tx.QueryRowContext(ctx, s.d.bind("SELECT count(*) FROM sessions WHERE id = ?"), id).Scan(&n); err != nil {
			return fmt.Errorf("import session %s: %w", id, err)
		}
		if n > 0 {
			return fmt.Errorf("import session %s: %w", id, ErrSessionExists)
		}
	}
	meta := imp.Meta
	meta.Status = StatusCold
	if err := s.upsertMeta(ctx, tx, meta, now.UnixNano()); err != nil {
		return fmt.Errorf("import session %s: %w", id, err)
	}
	for i := 0; i < len(imp.Events); i += rowsPerInsert {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("import session %s: %w", id, err)
		}
		if err := s.insertEvents(ctx, tx, imp.Events[i:min(i+rowsPerInsert, len(imp.Events))]); err != nil {
			return fmt.Errorf("import session %s: %w", id, err)
		}
	}
	if err := s.keepHead(ctx, tx, id); err != nil {
		return fmt.Errorf("import session %s: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("import session %s: %w", id, err)
	}
	s.ckpt.noteCommit(batchBytes(Batch{Events: imp.Events}), now)
	return nil
}

// checkImport refuses a log that is not one whole session's.
func checkImport(imp Import) error {
	if imp.Meta.ID == "" {
		return errors.New("no session id")
	}
	if len(imp.Events) == 0 || imp.Events[0].Kind != event.SessionCreated {
		return fmt.Errorf("the log must open with %s", event.SessionCreated)
	}
	for i, e := range imp.Events {
		if e.SessionID != imp.Meta.ID || e.Seq != int64(i+1) {
			return fmt.Errorf("event %d is session %s seq %d, want %s seq %d", i, e.SessionID, e.Seq, imp.Meta.ID, i+1)
		}
	}
	return nil
}
