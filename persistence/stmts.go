package persistence

import (
	"database/sql"
	"errors"
	"fmt"
)

// writerStmts are the statements every commit may run, prepared once on the
// writer connection: preparing per commit was a fifth of a small commit.
type writerStmts struct {
	upsertMeta  *sql.Stmt
	status      *sql.Stmt
	head        *sql.Stmt
	leaseOwner  *sql.Stmt
	leaseRow    *sql.Stmt
	claim       *sql.Stmt
	release     *sql.Stmt
	renew       *sql.Stmt
	dataVersion *sql.Stmt
}

func (w *writerStmts) prepare(db *sql.DB) error {
	for _, p := range []struct {
		to  **sql.Stmt
		sql string
	}{
		{&w.upsertMeta, `INSERT INTO sessions
			(id, title, cwd, status, status_reason, provider, model, usage, parent_id, forked_from_seq, interactive,
				child_of, transformers, agent, upstream_session_id, context_used, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET title = excluded.title, cwd = excluded.cwd,
				status = excluded.status, status_reason = excluded.status_reason,
				provider = excluded.provider, model = excluded.model, usage = excluded.usage,
				parent_id = excluded.parent_id, forked_from_seq = excluded.forked_from_seq,
				interactive = excluded.interactive, child_of = excluded.child_of,
				transformers = excluded.transformers, agent = excluded.agent,
				upstream_session_id = excluded.upstream_session_id, context_used = excluded.context_used`},
		// Only a new failure replaces a failed status: the actor of a
		// failed session still records itself cold as it is stopped.
		// Neither this nor the upsert above moves updated_at past the
		// session's creation: a session's last update is its newest
		// event's, and a status (an actor started or stopped, a daemon's
		// restart) is no activity.
		{&w.status, `UPDATE sessions SET status = ?, status_reason = ?
			WHERE id = ? AND (status != 'failed' OR ? = 'failed')`},
		// A session's newest event's seq and time, kept on its row while
		// it is cold (migration 0013): the log is read here, with two
		// index seeks, never per event.
		{&w.head, `UPDATE sessions SET
			last_seq = coalesce((SELECT max(seq) FROM events WHERE session_id = ?1), 0),
			updated_at = max(updated_at, coalesce((SELECT recorded_at FROM events WHERE session_id = ?1
				ORDER BY seq DESC LIMIT 1), 0))
			WHERE id = ?1`},
		{&w.leaseOwner, "SELECT owner FROM leases WHERE session_id = ?"},
		{&w.leaseRow, leaseRowSQL},
		{&w.claim, `INSERT INTO leases
			(session_id, owner, pid, host, started, command, acquired_at, heartbeat)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid,
				host = excluded.host, started = excluded.started, command = excluded.command,
				acquired_at = excluded.acquired_at, heartbeat = excluded.heartbeat`},
		{&w.release, "DELETE FROM leases WHERE session_id = ? AND owner = ?"},
		{&w.renew, "UPDATE leases SET heartbeat = ? WHERE owner = ?"},
		{&w.dataVersion, "PRAGMA data_version"},
	} {
		st, err := db.Prepare(p.sql)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", p.sql, err)
		}
		*p.to = st
	}
	return nil
}

func (w *writerStmts) close() {
	for _, st := range []*sql.Stmt{w.upsertMeta, w.status, w.head, w.leaseOwner, w.leaseRow, w.claim, w.release, w.renew, w.dataVersion} {
		if st != nil {
			st.Close()
		}
	}
}

// holds reports whether this process holds session's lease.
func (s *Store) holds(tx *sql.Tx, session string) (bool, error) {
	var owner string
	err := tx.Stmt(s.stmts.leaseOwner).QueryRow(session).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check lease of %s: %w", session, err)
	}
	return owner == s.owner.ID, nil
}
