package persistence

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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
const sessionColumns = `id, title, cwd, status, status_reason, provider, model, usage,
	parent_id, forked_from_seq, interactive, child_of, transformers, agent, upstream_session_id, context_used,
	coalesce((SELECT max(seq) FROM events WHERE session_id = sessions.id), 0),
	created_at,
	max(updated_at, coalesce((SELECT recorded_at FROM events WHERE session_id = sessions.id
		ORDER BY seq DESC LIMIT 1), 0)) AS updated`

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
	row := s.reader.QueryRowContext(ctx, "SELECT "+sessionColumns+" FROM sessions WHERE id = ?", id)
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
	q := "SELECT " + sessionColumns + " FROM sessions"
	var args []any
	if cwd != "" {
		q += " WHERE cwd = ?"
		args = append(args, cwd)
	}
	rows, err := s.reader.QueryContext(ctx, q+" ORDER BY updated DESC, id", args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []SessionMeta
	for rows.Next() {
		m, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}
