package persistence

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
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
	// Claims take these sessions' leases before anything is written.
	Claims []string
	// Releases give these sessions' leases up after the writes.
	Releases []string
	// Renew refreshes the heartbeat of every lease this process holds.
	Renew bool
}

// Empty reports whether the batch writes nothing.
func (b *Batch) Empty() bool {
	return len(b.Metas) == 0 && len(b.Events) == 0 && len(b.Statuses) == 0 &&
		len(b.Claims) == 0 && len(b.Releases) == 0 && !b.Renew
}

// Outcome is what a committed batch did about leases.
type Outcome struct {
	// Refused holds, by session, the live holder of each claim not granted.
	Refused map[string]Holder
	// Lost names the sessions whose writes were skipped: another process
	// holds their lease now.
	Lost map[string]bool
	// Failed holds, by session, why its writes were refused and left out
	// while the rest of the batch committed (a seq already taken, say).
	Failed map[string]error
}

// LeftOut is why the writes of session id were left out of the committed
// batch (ErrLeaseLost, or the store's refusal of its rows), or nil.
func (o Outcome) LeftOut(id string) error {
	if o.Lost[id] {
		return ErrLeaseLost
	}
	return o.Failed[id]
}

// rowsPerInsert bounds one multi-row INSERT; one statement per row would
// spend most of a batch in cgo calls.
const rowsPerInsert = 128

// Commit writes the batch in one transaction: all of it or none of it, but
// for the writes of sessions whose lease this process does not hold, which
// it skips and reports in Outcome.Lost, and of sessions whose own rows the
// store refuses, which it leaves out and reports in Outcome.Failed: one
// session's bad write (a seq collision from a damaged log) must not fail
// its neighbours in the batch. An error fails the whole batch; one the
// store's file caused is a *WriteError (ErrDiskFull, ErrStoreWrite). Only
// the store writer actor calls it.
func (s *Store) Commit(ctx context.Context, b Batch) (Outcome, error) {
	if err := s.writable(); err != nil {
		return Outcome{}, err
	}
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	out, err := s.commit(ctx, b, false)
	if err != nil && refusedRow(err) {
		// Which session's row it was SQLite does not say (a multi-row
		// INSERT mixes sessions), so the batch runs again with each
		// session's writes under a savepoint of their own. Only a failed
		// batch pays for this.
		out, err = s.commit(ctx, b, true)
	}
	return out, classifyWrite(err)
}

// commit runs one transaction of the batch; isolated puts each session's
// writes under a savepoint and leaves out those the store refuses.
func (s *Store) commit(ctx context.Context, b Batch, isolated bool) (Outcome, error) {
	var out Outcome
	// Prepare before BEGIN: the writer pool has one connection, which the
	// transaction holds until it ends.
	if err := s.prepareInserts(len(b.Events)); err != nil {
		return out, err
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return out, fmt.Errorf("commit batch: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			tx.Rollback()
			s.leases.invalidate()
		}
	}()
	if s.owner.ID != "" {
		if err := s.leases.begin(tx, s.stmts.dataVersion); err != nil {
			return out, fmt.Errorf("commit batch: %w", err)
		}
	}
	now := time.Now()
	if err := s.claimAll(ctx, tx, b.Claims, now, &out); err != nil {
		return out, err
	}
	if err := s.fence(tx, &b, &out); err != nil {
		return out, err
	}
	if isolated {
		err = s.writeIsolated(ctx, tx, b, now.UnixNano(), &out)
	} else {
		err = s.write(ctx, tx, b, now.UnixNano())
	}
	if err != nil {
		return out, err
	}
	if err := s.leaseUpkeep(tx, b, now.UnixNano()); err != nil {
		return out, err
	}
	if err := tx.Commit(); err != nil {
		return out, fmt.Errorf("commit batch: %w", err)
	}
	committed = true
	s.ckpt.noteCommit(batchBytes(b), now)
	return out, nil
}

// batchBytes estimates what a batch adds to the WAL: its payloads and a
// row's worth of keys and columns per event.
func batchBytes(b Batch) int {
	n := 0
	for i := range b.Events {
		n += len(b.Events[i].Payload) + len(b.Events[i].SessionID) + 32
	}
	return n
}

func (s *Store) write(ctx context.Context, tx *sql.Tx, b Batch, now int64) error {
	for _, m := range b.Metas {
		if err := s.upsertMeta(ctx, tx, m, now); err != nil {
			return err
		}
	}
	// No session row is touched per event: last_seq and the time of the
	// last event are read from the log itself (see sessions.go).
	for i := 0; i < len(b.Events); i += rowsPerInsert {
		chunk := b.Events[i:min(i+rowsPerInsert, len(b.Events))]
		if err := s.insertEvents(ctx, tx, chunk); err != nil {
			return err
		}
	}
	for _, st := range b.Statuses {
		if _, err := tx.Stmt(s.stmts.status).ExecContext(ctx, st.Status, st.Reason, st.SessionID, st.Status); err != nil {
			return fmt.Errorf("commit batch: session %s status: %w", st.SessionID, err)
		}
		if err := s.keepHead(ctx, tx, st.SessionID); err != nil {
			return err
		}
	}
	// A row written other than live (an import's, a seeded store's) is a
	// cold one from the start.
	for _, m := range b.Metas {
		if cmp.Or(m.Status, StatusLive) == StatusLive {
			continue
		}
		if err := s.keepHead(ctx, tx, m.ID); err != nil {
			return err
		}
	}
	return nil
}

// keepHead writes the seq and time of session id's newest event on its
// row, as its log holds them in tx: what a list reads for a cold session
// (sessions.go). Every status change does it, a session going cold
// among them, after the batch's events.
func (s *Store) keepHead(ctx context.Context, tx *sql.Tx, id string) error {
	if _, err := tx.StmtContext(ctx, s.stmts.head).ExecContext(ctx, id); err != nil {
		return fmt.Errorf("commit batch: session %s head: %w", id, err)
	}
	return nil
}

func (s *Store) claimAll(ctx context.Context, tx *sql.Tx, claims []string, now time.Time, out *Outcome) error {
	if s.owner.ID == "" {
		return nil
	}
	for _, id := range claims {
		h, err := s.claim(ctx, tx, id, now)
		if err != nil {
			return err
		}
		if h == nil {
			s.leases.held[id] = true
		} else {
			delete(s.leases.held, id)
			if out.Refused == nil {
				out.Refused = map[string]Holder{}
			}
			out.Refused[id] = *h
		}
	}
	return nil
}

// fence drops from b the writes of sessions this process holds no lease
// on. The transaction holds SQLite's write lock, so no lease can change
// hands between this check and the writes; sessions the lease cache knows
// held are not read again (see heldcache.go).
func (s *Store) fence(tx *sql.Tx, b *Batch, out *Outcome) error {
	if s.owner.ID == "" {
		return nil
	}
	check := func(id string) (bool, error) {
		if s.leases.held[id] {
			return true, nil
		}
		if out.Lost[id] {
			return false, nil
		}
		ok, err := s.holds(tx, id)
		if err != nil {
			return false, err
		}
		if ok {
			s.leases.held[id] = true
			return true, nil
		}
		if out.Lost == nil {
			out.Lost = map[string]bool{}
		}
		out.Lost[id] = true
		return false, nil
	}
	for _, m := range b.Metas {
		if _, err := check(m.ID); err != nil {
			return err
		}
	}
	for i := range b.Events {
		// Events of one session come in runs: check where the id changes.
		if i > 0 && b.Events[i].SessionID == b.Events[i-1].SessionID {
			continue
		}
		if _, err := check(b.Events[i].SessionID); err != nil {
			return err
		}
	}
	for _, st := range b.Statuses {
		if _, err := check(st.SessionID); err != nil {
			return err
		}
	}
	if len(out.Lost) == 0 {
		return nil
	}
	b.Metas = slices.DeleteFunc(slices.Clone(b.Metas), func(m SessionMeta) bool { return out.Lost[m.ID] })
	b.Events = slices.DeleteFunc(slices.Clone(b.Events), func(e event.Event) bool { return out.Lost[e.SessionID] })
	b.Statuses = slices.DeleteFunc(slices.Clone(b.Statuses), func(st StatusChange) bool { return out.Lost[st.SessionID] })
	return nil
}

func (s *Store) leaseUpkeep(tx *sql.Tx, b Batch, now int64) error {
	if s.owner.ID == "" {
		return nil
	}
	for _, id := range b.Releases {
		if _, err := tx.Stmt(s.stmts.release).Exec(id, s.owner.ID); err != nil {
			return fmt.Errorf("release lease of %s: %w", id, err)
		}
		delete(s.leases.held, id)
	}
	if b.Renew {
		if _, err := tx.Stmt(s.stmts.renew).Exec(now, s.owner.ID); err != nil {
			return fmt.Errorf("renew leases: %w", err)
		}
	}
	return nil
}

func (s *Store) upsertMeta(ctx context.Context, tx *sql.Tx, m SessionMeta, now int64) error {
	usage, err := json.Marshal(m.Usage)
	if err != nil {
		return fmt.Errorf("commit batch: session %s usage: %w", m.ID, err)
	}
	status := cmp.Or(m.Status, StatusLive)
	var chain *string
	if len(m.Transformers) > 0 {
		b, err := json.Marshal(m.Transformers)
		if err != nil {
			return fmt.Errorf("commit batch: session %s transformers: %w", m.ID, err)
		}
		chain = new(string(b))
	}
	_, err = tx.StmtContext(ctx, s.stmts.upsertMeta).ExecContext(ctx,
		m.ID, m.Title, m.Cwd, status, m.StatusReason, m.Provider, m.Model, string(usage),
		m.ParentID, m.ForkedFromSeq, m.Interactive, m.ChildOf, chain, m.Agent, m.UpstreamSessionID, m.ContextUsed, now, now)
	if err != nil {
		return fmt.Errorf("commit batch: upsert session %s: %w", m.ID, err)
	}
	return nil
}

func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, evs []event.Event) error {
	s.stmtMu.Lock()
	stmt := s.insert[len(evs)]
	s.stmtMu.Unlock()
	// Commits are serial (commitMu), so one args slice serves them all.
	args := s.args[:0]
	for _, e := range evs {
		args = append(args, e.SessionID, e.Seq, e.RecordedAt.UnixNano(), string(e.Kind), []byte(e.Payload))
	}
	s.args = args
	defer clear(args) // drop the payloads the slice would otherwise keep alive
	var err error
	if stmt != nil {
		_, err = tx.StmtContext(ctx, stmt).ExecContext(ctx, args...)
	} else {
		// A fenced batch has fewer rows than were prepared for; rare
		// enough to run unprepared (preparing now would wait on the
		// connection this transaction holds).
		_, err = tx.ExecContext(ctx, insertSQL(len(evs)), args...)
	}
	if err != nil {
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
	st, err := s.writer.Prepare(insertSQL(n))
	if err != nil {
		return fmt.Errorf("prepare insert of %d events: %w", n, err)
	}
	s.insert[n] = st
	return nil
}

func insertSQL(n int) string {
	return "INSERT INTO events (session_id, seq, recorded_at, kind, payload) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?),", n), ",")
}
