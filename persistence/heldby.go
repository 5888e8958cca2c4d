package persistence

import (
	"context"
	"fmt"
	"time"
)

// HeldBy returns the holder of session id when another live process holds
// its lease, else nil: no lease, this process's own, or a holder that is
// provably gone (whose lease the next claim takes over).
func (s *Store) HeldBy(ctx context.Context, id string) (*Holder, error) {
	h, err := s.Lease(ctx, id)
	if err != nil || h == nil || h.ID == s.owner.ID || h.gone(s.owner, time.Now(), s.leaseTTL) {
		return nil, err
	}
	return h, nil
}

// HeldElsewhere lists the sessions whose lease another live process holds
// (HeldBy of each, in one read of the lease table).
func (s *Store) HeldElsewhere(ctx context.Context) (map[string]bool, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT session_id, owner, pid, host, started, heartbeat FROM leases WHERE owner != ''`)
	if err != nil {
		return nil, fmt.Errorf("read leases: %w", err)
	}
	defer rows.Close()
	now, out := time.Now(), map[string]bool{}
	for rows.Next() {
		var h Holder
		var beat int64
		if err := rows.Scan(&h.SessionID, &h.ID, &h.PID, &h.Host, &h.Started, &beat); err != nil {
			return nil, fmt.Errorf("read leases: %w", err)
		}
		h.Heartbeat = time.Unix(0, beat).UTC()
		if h.ID != s.owner.ID && !h.gone(s.owner, now, s.leaseTTL) {
			out[h.SessionID] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read leases: %w", err)
	}
	return out, nil
}
