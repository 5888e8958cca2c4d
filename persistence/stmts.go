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
	leaseSeed   *sql.Stmt // PostgreSQL's
	claim       *sql.Stmt
	release     *sql.Stmt
	renew       *sql.Stmt
	lastSeq     *sql.Stmt
	dataVersion *sql.Stmt // SQLite's
}

func (w *writerStmts) prepare(db *sql.DB, d dialect) error {
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
			updated_at = ` + d.greatest() + `(updated_at, coalesce((SELECT recorded_at FROM events WHERE session_id = ?1
				ORDER BY seq DESC LIMIT 1), 0))
			WHERE id = ?1`},
		{&w.leaseOwner, "SELECT owner, epoch FROM leases WHERE session_id = ?" + d.lockRows()},
		{&w.leaseRow, leaseRowSQL + d.lockRows()},
		{&w.claim, `INSERT INTO leases
			(session_id, owner, pid, host, started, command, acquired_at, heartbeat, epoch)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid,
				host = excluded.host, started = excluded.started, command = excluded.command,
				acquired_at = excluded.acquired_at, heartbeat = excluded.heartbeat, epoch = excluded.epoch`},
		{&w.release, releaseSQL},
		{&w.renew, "UPDATE leases SET heartbeat = ? WHERE owner = ?"},
		{&w.lastSeq, "SELECT coalesce(max(seq), 0) FROM events WHERE session_id = ?"},
	} {
		st, err := db.Prepare(d.bind(p.sql))
		if err != nil {
			return fmt.Errorf("prepare %q: %w", p.sql, err)
		}
		*p.to = st
	}
	dialectOnly := "PRAGMA data_version"
	to := &w.dataVersion
	if d == postgresDialect {
		dialectOnly = `INSERT INTO leases (session_id, owner, pid, host, acquired_at, heartbeat)
			VALUES ($1, '', 0, '', 0, 0) ON CONFLICT (session_id) DO NOTHING`
		to = &w.leaseSeed
	}
	st, err := db.Prepare(dialectOnly)
	if err != nil {
		return fmt.Errorf("prepare %q: %w", dialectOnly, err)
	}
	*to = st
	return nil
}

func (w *writerStmts) close() {
	for _, st := range []*sql.Stmt{w.upsertMeta, w.status, w.head, w.leaseOwner, w.leaseRow, w.leaseSeed, w.claim, w.release, w.renew, w.lastSeq, w.dataVersion} {
		if st != nil {
			st.Close()
		}
	}
}

// leaseHolder reads which owner holds session's lease in tx, and at which
// epoch ("" and 0 for none).
func (s *Store) leaseHolder(tx *sql.Tx, session string) (owner string, epoch int64, err error) {
	err = tx.Stmt(s.stmts.leaseOwner).QueryRow(session).Scan(&owner, &epoch)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, fmt.Errorf("check lease of %s: %w", session, err)
	}
	return owner, epoch, nil
}
