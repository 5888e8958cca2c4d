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
	// Epochs names, by session, the lease epoch its writes were made
	// under (what its claim returned, Outcome.Epochs): writes under any
	// other epoch are refused (*FencedError). A session not named is
	// checked against the lease this process holds, whatever its epoch.
	Epochs map[string]int64
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
	// while the rest of the batch committed (a seq already taken, a gap
	// after the log's last: *SeqError).
	Failed map[string]error
	// Epochs holds, by session, the lease epoch of each claim granted.
	Epochs map[string]int64

	fenced map[string]*FencedError // why each of Lost was fenced
}

// LeftOut is why the writes of session id were left out of the committed
// batch (a *FencedError, which matches ErrLeaseLost, or the store's
// refusal of its rows), or nil.
func (o Outcome) LeftOut(id string) error {
	if o.Lost[id] {
		if f := o.fenced[id]; f != nil {
			return f
		}
		return ErrLeaseLost
	}
	return o.Failed[id]
}

func (o *Outcome) fence(f *FencedError) {
	if o.Lost == nil {
		o.Lost, o.fenced = map[string]bool{}, map[string]*FencedError{}
	}
	o.Lost[f.SessionID], o.fenced[f.SessionID] = true, f
}

func (o *Outcome) refuse(id string, err error) {
	if o.Failed == nil {
		o.Failed = map[string]error{}
	}
	o.Failed[id] = err
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
	for try := 1; try < pgConflictTries && pgConflict(err); try++ {
		// Another member's transaction took the same lease rows in
		// another order (PostgreSQL ended ours to break the cycle):
		// nothing of ours was written, so the batch simply runs again.
		time.Sleep(time.Duration(try) * pgConflictPause)
		out, err = s.commit(ctx, b, false)
	}
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
	if err := s.fence(ctx, tx, &b, &out); err != nil {
		return out, err
	}
	if err := s.checkSeqs(ctx, tx, &b, &out); err != nil {
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
	// PostgreSQL's followers hear of the new events from a trigger on
	// the insert (migration 0015), in this transaction.
	if err := s.leaseUpkeep(tx, b, now.UnixNano()); err != nil {
		return out, err
	}
	if err := tx.Commit(); err != nil {
		return out, fmt.Errorf("commit batch: %w", err)
	}
	committed = true
	s.rememberTips(b, out)
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
	// In id order, the order every member locks lease rows in (fence's
	// too): two members claiming the same sessions then queue instead of
	// deadlocking.
	claims = slices.Sorted(slices.Values(claims))
	for _, id := range claims {
		h, epoch, err := s.claim(ctx, tx, id, now)
		if err != nil {
			return err
		}
		if h == nil {
			s.leases.held[id] = epoch
			if out.Epochs == nil {
				out.Epochs = map[string]int64{}
			}
			out.Epochs[id] = epoch
		} else {
			s.leases.forget(id)
			if out.Refused == nil {
				out.Refused = map[string]Holder{}
			}
			out.Refused[id] = *h
		}
	}
	return nil
}

// fence drops from b the writes of sessions this process holds no lease
// on, or holds at another epoch than b.Epochs names. SQLite's transaction
// holds its write lock, PostgreSQL's locks the lease rows it reads, so no
// lease can change hands between this check and the writes; sessions the
// lease cache knows held are not read again (see heldcache.go).
func (s *Store) fence(ctx context.Context, tx *sql.Tx, b *Batch, out *Outcome) error {
	if s.owner.ID == "" {
		return nil
	}
	ids := batchSessions(*b)
	var unknown []string
	for _, id := range ids {
		if _, ok := s.leases.held[id]; !ok {
			unknown = append(unknown, id)
		}
	}
	rows, err := s.readLeases(ctx, tx, unknown)
	if err != nil {
		return err
	}
	for _, id := range ids {
		epoch, held := s.leases.held[id]
		row := rows[id]
		if !held && row.owner == s.owner.ID {
			epoch, held = row.epoch, true
			s.leases.held[id] = epoch
		}
		want, named := b.Epochs[id]
		switch {
		case !held:
			out.fence(&FencedError{SessionID: id, Epoch: want, Current: row.epoch, Owner: row.owner})
		case named && want != epoch:
			out.fence(&FencedError{SessionID: id, Epoch: want, Current: epoch, Owner: s.owner.ID})
		}
	}
	if len(out.Lost) > 0 {
		dropSessions(b, out.Lost)
	}
	return nil
}

// batchSessions are the sessions b writes, each once, in first-seen order.
func batchSessions(b Batch) []string {
	var ids []string
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, m := range b.Metas {
		add(m.ID)
	}
	for i := range b.Events {
		// Events of one session come in runs: look where the id changes.
		if i == 0 || b.Events[i].SessionID != b.Events[i-1].SessionID {
			add(b.Events[i].SessionID)
		}
	}
	for _, st := range b.Statuses {
		add(st.SessionID)
	}
	return ids
}

// dropSessions removes from b the writes of the sessions in gone.
func dropSessions(b *Batch, gone map[string]bool) {
	b.Metas = slices.DeleteFunc(slices.Clone(b.Metas), func(m SessionMeta) bool { return gone[m.ID] })
	b.Events = slices.DeleteFunc(slices.Clone(b.Events), func(e event.Event) bool { return gone[e.SessionID] })
	b.Statuses = slices.DeleteFunc(slices.Clone(b.Statuses), func(st StatusChange) bool { return gone[st.SessionID] })
}

type leaseRow struct {
	owner string
	epoch int64
}

// leasesAndTipsPostgres reads and locks the lease rows of a JSON list of
// sessions, in id order (every member locks in that order), with each
// session's last seq: one round trip where fence and checkSeqs would take
// two.
const leasesAndTipsPostgres = `SELECT le.session_id, le.owner, le.epoch,
	COALESCE((SELECT e.seq FROM events e WHERE e.session_id = le.session_id ORDER BY e.seq DESC LIMIT 1), 0)
	FROM leases le JOIN json_array_elements_text($1::json) AS l(id) ON le.session_id = l.id
	ORDER BY le.session_id FOR UPDATE OF le`

// readLeases reads the lease rows of ids in tx (locking them, in
// PostgreSQL): SQLite one prepared statement each, PostgreSQL one
// statement for all, in id order, the order every member locks them in.
func (s *Store) readLeases(ctx context.Context, tx *sql.Tx, ids []string) (map[string]leaseRow, error) {
	out := make(map[string]leaseRow, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	if s.d != postgresDialect {
		for _, id := range ids {
			owner, epoch, err := s.leaseHolder(tx, id)
			if err != nil {
				return nil, err
			}
			out[id] = leaseRow{owner: owner, epoch: epoch}
		}
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("check leases: %w", err)
	}
	rows, err := tx.QueryContext(ctx, leasesAndTipsPostgres, string(list))
	if err != nil {
		return nil, fmt.Errorf("check leases: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var r leaseRow
		var last int64
		if err := rows.Scan(&id, &r.owner, &r.epoch, &last); err != nil {
			return nil, fmt.Errorf("check leases: %w", err)
		}
		out[id] = r
		if r.owner == s.owner.ID {
			// Read under the lease's row lock, so no other member can
			// append before this transaction ends: checkSeqs needs no
			// statement of its own for it.
			s.leases.last[id] = last
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("check leases: %w", err)
	}
	return out, nil
}

func (s *Store) leaseUpkeep(tx *sql.Tx, b Batch, now int64) error {
	if s.owner.ID == "" {
		return nil
	}
	// Released in id order too (see claimAll).
	for _, id := range slices.Sorted(slices.Values(b.Releases)) {
		if _, err := tx.Stmt(s.stmts.release).Exec(id, s.owner.ID); err != nil {
			return fmt.Errorf("release lease of %s: %w", id, err)
		}
		s.leases.forget(id)
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
		_, err = tx.ExecContext(ctx, s.d.bind(insertSQL(len(evs))), args...)
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
	st, err := s.writer.Prepare(s.d.bind(insertSQL(n)))
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
