package persistence

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// StatusChange sets a session's status outside of an event append.
type StatusChange struct {
	SessionID string
	Status    string
	Reason    string
}

// Batch is what one transaction writes. Metas are upserted before events so
// a new session's first events satisfy the foreign key.
type Batch struct {
	Metas    []SessionMeta
	Events   []event.Event
	Statuses []StatusChange
}

// Empty reports whether the batch writes nothing.
func (b *Batch) Empty() bool {
	return len(b.Metas) == 0 && len(b.Events) == 0 && len(b.Statuses) == 0
}

// rowsPerInsert bounds one multi-row INSERT; one statement per row would
// spend most of a batch in cgo calls.
const rowsPerInsert = 128

// Commit writes the batch in one transaction: all of it or none of it. Only
// the store writer actor calls it.
func (s *Store) Commit(ctx context.Context, b Batch) error {
	// Prepare before BEGIN: the writer pool has one connection, which the
	// transaction holds until it ends.
	if err := s.prepareInserts(len(b.Events)); err != nil {
		return err
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("commit batch: %w", err)
	}
	defer tx.Rollback()
	now := time.Now().UnixNano()
	for _, m := range b.Metas {
		if err := upsertMeta(ctx, tx, m, now); err != nil {
			return err
		}
	}
	last := map[string]int64{}
	for i := 0; i < len(b.Events); i += rowsPerInsert {
		chunk := b.Events[i:min(i+rowsPerInsert, len(b.Events))]
		if err := s.insertEvents(ctx, tx, chunk); err != nil {
			return err
		}
		for _, e := range chunk {
			last[e.SessionID] = max(last[e.SessionID], e.Seq)
		}
	}
	for id, seq := range last {
		if _, err := tx.ExecContext(ctx,
			"UPDATE sessions SET last_seq = max(last_seq, ?), updated_at = ? WHERE id = ?", seq, now, id); err != nil {
			return fmt.Errorf("commit batch: session %s last seq: %w", id, err)
		}
	}
	for _, st := range b.Statuses {
		if _, err := tx.ExecContext(ctx,
			// Only a new failure replaces a failed status: the actor of a
			// failed session still records itself cold as it is stopped.
			`UPDATE sessions SET status = ?, status_reason = ?, updated_at = ?
			 WHERE id = ? AND (status != 'failed' OR ? = 'failed')`,
			st.Status, st.Reason, now, st.SessionID, st.Status); err != nil {
			return fmt.Errorf("commit batch: session %s status: %w", st.SessionID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit batch: %w", err)
	}
	return nil
}

func upsertMeta(ctx context.Context, tx *sql.Tx, m SessionMeta, now int64) error {
	usage, err := json.Marshal(m.Usage)
	if err != nil {
		return fmt.Errorf("commit batch: session %s usage: %w", m.ID, err)
	}
	status := m.Status
	if status == "" {
		status = StatusLive
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO sessions
		(id, title, cwd, status, status_reason, provider, model, usage, parent_id, forked_from_seq, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET title = excluded.title, cwd = excluded.cwd,
			status = excluded.status, status_reason = excluded.status_reason,
			provider = excluded.provider, model = excluded.model, usage = excluded.usage,
			parent_id = excluded.parent_id, forked_from_seq = excluded.forked_from_seq,
			updated_at = excluded.updated_at`,
		m.ID, m.Title, m.Cwd, status, m.StatusReason, m.Provider, m.Model, string(usage),
		m.ParentID, m.ForkedFromSeq, now, now)
	if err != nil {
		return fmt.Errorf("commit batch: upsert session %s: %w", m.ID, err)
	}
	return nil
}

func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, evs []event.Event) error {
	s.stmtMu.Lock()
	stmt := s.insert[len(evs)]
	s.stmtMu.Unlock()
	args := make([]any, 0, len(evs)*5)
	for _, e := range evs {
		args = append(args, e.SessionID, e.Seq, e.RecordedAt.UnixNano(), string(e.Kind), []byte(e.Payload))
	}
	if _, err := tx.StmtContext(ctx, stmt).ExecContext(ctx, args...); err != nil {
		return fmt.Errorf("commit batch: insert %d events of %s from seq %d: %w",
			len(evs), evs[0].SessionID, evs[0].Seq, err)
	}
	return nil
}

// prepareInserts makes sure the INSERTs that n events need are prepared.
func (s *Store) prepareInserts(n int) error {
	if n == 0 {
		return nil
	}
	if err := s.insertStmt(min(n, rowsPerInsert)); err != nil {
		return err
	}
	if rest := n % rowsPerInsert; rest != 0 {
		return s.insertStmt(rest)
	}
	return nil
}

// insertStmt prepares (once) the INSERT for n rows.
func (s *Store) insertStmt(n int) error {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	if _, ok := s.insert[n]; ok {
		return nil
	}
	q := "INSERT INTO events (session_id, seq, recorded_at, kind, payload) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?),", n), ",")
	st, err := s.writer.Prepare(q)
	if err != nil {
		return fmt.Errorf("prepare insert of %d events: %w", n, err)
	}
	s.insert[n] = st
	return nil
}
