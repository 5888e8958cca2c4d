package persistence

import (
	"context"
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
