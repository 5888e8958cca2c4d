package persistence

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// Session statuses.
const (
	StatusLive   = "live"   // an actor serves it
	StatusCold   = "cold"   // passivated: state on disk only
	StatusFailed = "failed" // its actor failed too often and was stopped
)

// SessionMeta is the snapshot row of a session.
type SessionMeta struct {
	ID            string      `json:"id"`
	Title         string      `json:"title"`
	Cwd           string      `json:"cwd"`
	Status        string      `json:"status"`
	StatusReason  string      `json:"status_reason,omitempty"`
	Provider      string      `json:"provider,omitempty"`
	Model         string      `json:"model,omitempty"`
	Usage         event.Usage `json:"usage"`
	ParentID      string      `json:"parent_id,omitempty"`
	ForkedFromSeq int64       `json:"forked_from_seq,omitempty"`
	// Interactive is nil while undecided; false for a piped session.
	Interactive *bool `json:"interactive,omitempty"`
	// ChildOf is the session a transformer spawned this one for.
	ChildOf string `json:"child_of,omitempty"`
	// Transformers is the session's transformer chain (the daemon's).
	Transformers []string `json:"transformers,omitempty"`
	// Agent is the ACP agent answering the session ("" for troupe's own
	// engine); UpstreamSessionID the session id that agent gave it.
	Agent             string `json:"agent,omitempty"`
	UpstreamSessionID string `json:"upstream_session_id,omitempty"`
	// ContextUsed is the context the last step used (input, cache read
	// and output tokens), 0 after a compaction until the next step.
	ContextUsed int64     `json:"context_used,omitempty"`
	LastSeq     int64     `json:"last_seq"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// A commit writes no session row for its events (that UPDATE was a third
// of a one-event commit), so a snapshot's last seq and last update come
// from the session's newest event: one index seek each.
func sessionColumns(d dialect) string {
	return `id, title, cwd, status, status_reason, provider, model, usage,
	parent_id, forked_from_seq, interactive, child_of, transformers, agent, upstream_session_id, context_used,
	coalesce((SELECT max(seq) FROM events WHERE session_id = sessions.id), 0),
	created_at,
	` + d.greatest() + `(updated_at, coalesce((SELECT recorded_at FROM events WHERE session_id = sessions.id
		ORDER BY seq DESC LIMIT 1), 0)) AS updated`
}

func scanSession(row interface{ Scan(...any) error }) (SessionMeta, error) {
	var m SessionMeta
	var usage string
	var created, updated int64
	var interactive sql.NullBool
	var chain sql.NullString
	err := row.Scan(&m.ID, &m.Title, &m.Cwd, &m.Status, &m.StatusReason, &m.Provider, &m.Model,
		&usage, &m.ParentID, &m.ForkedFromSeq, &interactive, &m.ChildOf, &chain, &m.Agent, &m.UpstreamSessionID, &m.ContextUsed, &m.LastSeq, &created, &updated)
	if err != nil {
		return SessionMeta{}, err
	}
	if chain.Valid {
		if err := json.Unmarshal([]byte(chain.String), &m.Transformers); err != nil {
			return SessionMeta{}, fmt.Errorf("session %s transformers: %w", m.ID, err)
		}
	}
	if interactive.Valid {
		m.Interactive = &interactive.Bool
	}
	if err := json.Unmarshal([]byte(usage), &m.Usage); err != nil {
		return SessionMeta{}, fmt.Errorf("session %s usage: %w", m.ID, err)
	}
	m.CreatedAt = time.Unix(0, created).UTC()
	m.UpdatedAt = time.Unix(0, updated).UTC()
	return m, nil
}

// Session reads one session's snapshot.
func (s *Store) Session(ctx context.Context, id string) (SessionMeta, error) {
	row := s.reader.QueryRowContext(ctx, s.d.bind("SELECT "+sessionColumns(s.d)+" FROM sessions WHERE id = ?"), id)
	m, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return SessionMeta{}, fmt.Errorf("load session %s: %w", id, ErrSessionNotFound)
	}
	if err != nil {
		return SessionMeta{}, fmt.Errorf("load session %s: %w", id, err)
	}
	return m, nil
}

// CountSessions counts the sessions the store holds.
func (s *Store) CountSessions(ctx context.Context) (int, error) {
	var n int
	if err := s.reader.QueryRowContext(ctx, "SELECT count(*) FROM sessions").Scan(&n); err != nil {
		return 0, fmt.Errorf("count sessions: %w", err)
	}
	return n, nil
}

// Sessions lists snapshots, most recently updated first. An empty cwd lists
// every session.
func (s *Store) Sessions(ctx context.Context, cwd string) ([]SessionMeta, error) {
	return s.SessionsPage(ctx, ListQuery{Cwd: cwd})
}

// ListQuery picks a page of the session list.
type ListQuery struct {
	// Cwd keeps only the sessions of this directory ("" every one).
	Cwd string
	// InteractiveOnly leaves out the sessions marked not interactive
	// (troupe cat's, a fork nobody prompted).
	InteractiveOnly bool
	// After starts the page past this entry of the list's order (nil:
	// at the start); Limit ends it (0: never).
	After *ListCursor
	Limit int
}

// ListCursor is a place in the list's order: an entry's update time and
// id. A page starting past it is the same whatever was created or
// updated meanwhile, but for those sessions, which move to the list's
// head.
type ListCursor struct {
	UpdatedAt time.Time
	ID        string
}

// CursorOf is the place of m in the list's order.
func CursorOf(m SessionMeta) ListCursor { return ListCursor{UpdatedAt: m.UpdatedAt, ID: m.ID} }

// Covers reports whether m is at c or before it in the list's order
// (newest first, then by id): a page past c leaves it out.
func (c ListCursor) Covers(m SessionMeta) bool {
	if !m.UpdatedAt.Equal(c.UpdatedAt) {
		return m.UpdatedAt.After(c.UpdatedAt)
	}
	return m.ID <= c.ID
}

// ListOrder is the list's order, for slices.SortFunc.
func ListOrder(a, b SessionMeta) int {
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// coldColumns are sessionColumns for a cold session, whose row keeps its
// newest event's seq and time (migration 0013): no log is read.
const coldColumns = `id, title, cwd, status, status_reason, provider, model, usage,
	parent_id, forked_from_seq, interactive, child_of, transformers, agent, upstream_session_id, context_used,
	last_seq, created_at, updated_at`

// SessionsPage lists a page of snapshots, most recently updated first (by
// id among equals). The cold sessions, all but the few an actor hosts or
// a failure stopped, are read from their rows in the order of their
// index, past the cursor and up to the limit; the others from their logs.
func (s *Store) SessionsPage(ctx context.Context, q ListQuery) ([]SessionMeta, error) {
	open, err := s.openSessions(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	cold, err := s.coldSessions(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	out := mergeSorted(open, cold)
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// openSessions are the sessions not cold that q keeps, in list order.
func (s *Store) openSessions(ctx context.Context, q ListQuery) ([]SessionMeta, error) {
	query := "SELECT " + sessionColumns(s.d) + " FROM sessions" + s.d.indexedBy("sessions_open") + " WHERE status != 'cold'"
	var args []any
	if q.Cwd != "" {
		query += " AND cwd = ?"
		args = append(args, q.Cwd)
	}
	all, err := s.scanSessions(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	kept := all[:0]
	for _, m := range all {
		if q.InteractiveOnly && m.Interactive != nil && !*m.Interactive {
			continue
		}
		if q.After != nil && q.After.Covers(m) {
			continue
		}
		kept = append(kept, m)
	}
	slices.SortFunc(kept, ListOrder)
	return kept, nil
}

// coldSessions are the cold sessions q keeps, in list order, at most
// q.Limit of them.
func (s *Store) coldSessions(ctx context.Context, q ListQuery) ([]SessionMeta, error) {
	var sb strings.Builder
	var args []any
	sb.WriteString("SELECT " + coldColumns + " FROM sessions")
	if q.Cwd != "" {
		sb.WriteString(s.d.indexedBy("sessions_cold_by_cwd") + " WHERE status = 'cold' AND cwd = ?")
		args = append(args, q.Cwd)
	} else {
		sb.WriteString(s.d.indexedBy("sessions_cold") + " WHERE status = 'cold'")
	}
	if q.InteractiveOnly {
		sb.WriteString(" AND (interactive IS NULL OR " + s.d.isTrue("interactive") + ")")
	}
	if q.After != nil {
		at := q.After.UpdatedAt.UnixNano()
		sb.WriteString(" AND updated_at <= ? AND (updated_at < ? OR id > ?)")
		args = append(args, at, at, q.After.ID)
	}
	sb.WriteString(" ORDER BY updated_at DESC, id")
	if q.Limit > 0 {
		sb.WriteString(" LIMIT ?")
		args = append(args, q.Limit)
	}
	return s.scanSessions(ctx, sb.String(), args...)
}

func (s *Store) scanSessions(ctx context.Context, query string, args ...any) ([]SessionMeta, error) {
	rows, err := s.reader.QueryContext(ctx, s.d.bind(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SessionMeta
	for rows.Next() {
		m, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// mergeSorted merges two lists in list order.
func mergeSorted(a, b []SessionMeta) []SessionMeta {
	if len(a) == 0 {
		return b
	}
	out := make([]SessionMeta, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if ListOrder(a[0], b[0]) <= 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}
