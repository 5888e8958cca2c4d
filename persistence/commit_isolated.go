package persistence

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mattn/go-sqlite3"
)

// writeIsolated writes b one session at a time, each under a savepoint:
// a session whose rows the store refuses (refusedRow) has all of its
// writes in the batch rolled back and its error recorded in out.Failed,
// and the others go on. Any other error fails the batch. It is the retry
// of a batch whose plain write hit such a refusal, never the first try.
func (s *Store) writeIsolated(ctx context.Context, tx *sql.Tx, b Batch, now int64, out *Outcome) error {
	for _, part := range bySession(b) {
		if _, err := tx.ExecContext(ctx, "SAVEPOINT session_writes"); err != nil {
			return fmt.Errorf("commit batch: savepoint: %w", err)
		}
		err := s.write(ctx, tx, part.batch, now)
		if err != nil && !refusedRow(err) {
			return err
		}
		if err != nil {
			if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO session_writes"); rerr != nil {
				return fmt.Errorf("commit batch: roll back the writes of %s: %w", part.id, rerr)
			}
			if out.Failed == nil {
				out.Failed = map[string]error{}
			}
			out.Failed[part.id] = err
		}
		if _, err := tx.ExecContext(ctx, "RELEASE session_writes"); err != nil {
			return fmt.Errorf("commit batch: release savepoint: %w", err)
		}
	}
	return nil
}

type sessionWrites struct {
	id    string
	batch Batch
}

// bySession splits the writes of b (metas, events, statuses) by session,
// in the order each session first appears; each keeps its own order.
func bySession(b Batch) []sessionWrites {
	var parts []sessionWrites
	index := map[string]int{}
	part := func(id string) *Batch {
		i, ok := index[id]
		if !ok {
			i = len(parts)
			index[id] = i
			parts = append(parts, sessionWrites{id: id})
		}
		return &parts[i].batch
	}
	for _, m := range b.Metas {
		p := part(m.ID)
		p.Metas = append(p.Metas, m)
	}
	for _, e := range b.Events {
		p := part(e.SessionID)
		p.Events = append(p.Events, e)
	}
	for _, st := range b.Statuses {
		p := part(st.SessionID)
		p.Statuses = append(p.Statuses, st)
	}
	return parts
}

// refusedRow reports an error that one session's rows caused (a seq
// already taken, a payload too big, a missing session row): the rest of
// the batch can commit without them.
func refusedRow(err error) bool {
	if pe := pgError(err); pe != nil {
		return pgRefusedRow(pe)
	}
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code {
	case sqlite3.ErrConstraint, sqlite3.ErrTooBig, sqlite3.ErrMismatch:
		return true
	}
	return false
}
