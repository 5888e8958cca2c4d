package sim

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"

	_ "github.com/mattn/go-sqlite3" // the store's driver
)

// storeEvent is one canonical event as the store holds it.
type storeEvent struct {
	Seq     int64
	Kind    string
	Payload json.RawMessage
}

// store reads the daemon's SQLite file directly, read-only: what a crash
// left is what the file says, not what a daemon answers.
type store struct {
	path string
	db   *sql.DB
}

func openStore(path string) (*store, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?"+url.Values{"mode": {"ro"}, "_busy_timeout": {"5000"}}.Encode())
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db.SetMaxOpenConns(2)
	return &store{path: path, db: db}, nil
}

func (s *store) close() { _ = s.db.Close() }

// events loads a session's whole log in seq order.
func (s *store) events(session string) ([]storeEvent, error) {
	return s.query("SELECT seq, kind, payload FROM events WHERE session_id = ? ORDER BY seq", session)
}

func (s *store) query(q, session string) ([]storeEvent, error) {
	rows, err := s.db.Query(q, session)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", session, err)
	}
	defer rows.Close()
	var out []storeEvent
	for rows.Next() {
		var e storeEvent
		var payload []byte
		if err := rows.Scan(&e.Seq, &e.Kind, &payload); err != nil {
			return nil, fmt.Errorf("load %s: %w", session, err)
		}
		e.Payload = payload
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load %s: %w", session, err)
	}
	return out, nil
}

// span is how many events the store holds for session, and its lowest and
// highest seq: a log without holes is exactly seqs 1 to last, which is all
// a check of what clients were shown needs to know, without its payloads.
func (s *store) span(session string) (n, first, last int64, err error) {
	err = s.db.QueryRow("SELECT count(*), coalesce(min(seq), 0), coalesce(max(seq), 0) FROM events WHERE session_id = ?", session).
		Scan(&n, &first, &last)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("span of %s: %w", session, err)
	}
	return n, first, last, nil
}

// promptKinds are the events foldPrompts reads.
const promptKinds = "'prompt.queued', 'prompt.updated', 'prompt.delivered', 'prompt.cancelled', 'prompt.amended', 'run.ended'"

// promptEvents loads the events of session that say what became of its
// prompts, in seq order: far fewer than the deltas around them.
func (s *store) promptEvents(session string) ([]storeEvent, error) {
	return s.query("SELECT seq, kind, payload FROM events WHERE session_id = ? AND kind IN ("+promptKinds+") ORDER BY seq", session)
}

// integrity is PRAGMA integrity_check's verdict ("ok" when sound).
func (s *store) integrity() (string, error) {
	var v string
	if err := s.db.QueryRow("PRAGMA integrity_check").Scan(&v); err != nil {
		return "", fmt.Errorf("integrity check %s: %w", s.path, err)
	}
	return v, nil
}

// deleteFrom removes a session's events from seq on, behind every
// daemon's back, as a store that lost acknowledged commits would: only the
// tests' injected violation does this, while no daemon runs. (A gap in
// the middle of a log makes session/attach answer an error naming it.)
func deleteFrom(path, session string, seq int64) error {
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	defer db.Close()
	if _, err := db.Exec("DELETE FROM events WHERE session_id = ? AND seq >= ?", session, seq); err != nil {
		return fmt.Errorf("delete %s/%d: %w", session, seq, err)
	}
	return nil
}
