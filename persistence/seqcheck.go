package persistence

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// SeqError refuses a session's writes whose first event does not follow
// its log's last: a gap. (A seq the log already holds is the primary
// key's to refuse: IsSeqConflict.)
type SeqError struct {
	SessionID string
	// Want is the seq the log's next event must have; Got the one the
	// writes started at.
	Want, Got int64
}

func (e *SeqError) Error() string {
	return fmt.Sprintf("session %s: events from seq %d would leave a gap after the log's last, %d", e.SessionID, e.Got, e.Want-1)
}

// checkSeqs leaves out the writes of each session whose events in b do
// not continue its log without a gap (*SeqError in out.Failed), in the
// transaction that writes them: with the unique (session, seq) key, each
// session's log has no gap and no duplicate whoever appends to it. The
// log's last seq comes from the cache while it is valid (heldcache.go),
// else from the log. Only a store that writes as an owner checks: the
// zero Owner writes as it is told (tools, tests of the store alone).
func (s *Store) checkSeqs(ctx context.Context, tx *sql.Tx, b *Batch, out *Outcome) error {
	if s.owner.ID == "" || len(b.Events) == 0 {
		return nil
	}
	next := map[string]int64{}
	var unknown []string
	for i := range b.Events {
		id := b.Events[i].SessionID
		if i > 0 && id == b.Events[i-1].SessionID {
			continue
		}
		if _, seen := next[id]; seen {
			continue
		}
		if last, ok := s.leases.last[id]; ok {
			next[id] = last + 1
			continue
		}
		next[id] = 0
		unknown = append(unknown, id)
	}
	lasts, err := s.lastSeqs(ctx, tx, unknown)
	if err != nil {
		return err
	}
	for _, id := range unknown {
		next[id] = lasts[id] + 1
	}
	var gapped map[string]bool
	for _, e := range b.Events {
		want := next[e.SessionID]
		switch {
		case want < 0: // decided
		case e.Seq == want:
			next[e.SessionID] = want + 1
		case e.Seq > want:
			out.refuse(e.SessionID, &SeqError{SessionID: e.SessionID, Want: want, Got: e.Seq})
			if gapped == nil {
				gapped = map[string]bool{}
			}
			gapped[e.SessionID] = true
			next[e.SessionID] = -1
		default:
			// A seq the log holds: the insert fails on the key, and
			// the batch's retry leaves this session out with the
			// store's own words for it (commit_isolated.go).
			next[e.SessionID] = -1
		}
	}
	if gapped != nil {
		dropSessions(b, gapped)
	}
	return nil
}

const lastSeqsPostgres = `SELECT l.id, COALESCE((SELECT e.seq FROM events e WHERE e.session_id = l.id
	ORDER BY e.seq DESC LIMIT 1), 0) FROM json_array_elements_text($1::json) AS l(id)`

// lastSeqs reads the last seq of each of ids' logs in tx (0 for none):
// SQLite one prepared statement each, PostgreSQL one statement for all.
func (s *Store) lastSeqs(ctx context.Context, tx *sql.Tx, ids []string) (map[string]int64, error) {
	out := make(map[string]int64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	if s.d != postgresDialect {
		for _, id := range ids {
			var last int64
			if err := tx.StmtContext(ctx, s.stmts.lastSeq).QueryRowContext(ctx, id).Scan(&last); err != nil {
				return nil, fmt.Errorf("last seq of %s: %w", id, err)
			}
			out[id] = last
		}
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("last seqs: %w", err)
	}
	// One backward step of the (session_id, seq) key per session: a
	// max() grouped over an IN list lets the planner scan every event.
	rows, err := tx.QueryContext(ctx, lastSeqsPostgres, string(list))
	if err != nil {
		return nil, fmt.Errorf("last seqs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var last int64
		if err := rows.Scan(&id, &last); err != nil {
			return nil, fmt.Errorf("last seqs: %w", err)
		}
		out[id] = last
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("last seqs: %w", err)
	}
	return out, nil
}

// rememberTips records, once b committed, the last seq it gave each
// session's log (for the next commit's checkSeqs).
func (s *Store) rememberTips(b Batch, out Outcome) {
	if s.owner.ID == "" || s.leases.last == nil {
		return
	}
	for _, e := range b.Events {
		if out.Failed[e.SessionID] == nil {
			s.leases.last[e.SessionID] = e.Seq
		}
	}
}
