package persistence

import (
	"context"
	"fmt"
	"time"
)

// orphansSQL reads every live session with its lease, if any: the
// sessions_open index keeps it to the few sessions not cold.
const orphansSQL = `SELECT s.id, COALESCE(l.owner, ''), COALESCE(l.pid, 0), COALESCE(l.host, ''),
	COALESCE(l.started, 0), COALESCE(l.heartbeat, 0)
	FROM sessions s LEFT JOIN leases l ON l.session_id = s.id
	WHERE s.status = 'live'`

// Orphans lists the sessions the store says are live whose lease no live
// process holds: their holder's heartbeat lapsed, or it ran on this host
// and is dead, or it released the lease without marking the session cold.
// A cluster member that crashed or froze leaves such sessions behind; the
// members left wake them, so that recovery resumes what was running. The
// sessions this process holds are never orphans.
func (s *Store) Orphans(ctx context.Context) ([]string, error) {
	rows, err := s.reader.QueryContext(ctx, s.d.bind(orphansSQL))
	if err != nil {
		return nil, fmt.Errorf("list orphaned sessions: %w", err)
	}
	defer rows.Close()
	now := time.Now()
	var out []string
	for rows.Next() {
		var h Holder
		var beat int64
		if err := rows.Scan(&h.SessionID, &h.ID, &h.PID, &h.Host, &h.Started, &beat); err != nil {
			return nil, fmt.Errorf("list orphaned sessions: %w", err)
		}
		h.Heartbeat = time.Unix(0, beat)
		if h.ID == s.owner.ID && h.ID != "" {
			continue
		}
		if h.ID == "" || h.gone(s.owner, now, s.leaseTTL) {
			out = append(out, h.SessionID)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list orphaned sessions: %w", err)
	}
	return out, nil
}
