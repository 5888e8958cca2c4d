package sessions

import (
	"context"

	"github.com/troupehq/troupe/persistence"
)

// Snapshot is a fold of a session's log through Seq that a transport
// keeps, so that its next fold reads only the log after Seq (an ACP
// attach's projection, say). The store vouches for it on the way out
// (persistence.Store.LoadSnapshot): of another version, past the log's
// end or of a log that no longer holds the event it was taken after, it is
// never returned.
type Snapshot = persistence.Snapshot

// snapshotWrites bounds the transports' snapshot writes at once: many
// attachments crossing a snapshot point together write a few at a time,
// beside the sessions' commits.
var snapshotWrites = make(chan struct{}, 2)

// LoadSnapshot is session id's snapshot of kind at version, ok false when
// the store has none it still vouches for.
func (c *Client) LoadSnapshot(ctx context.Context, id, kind string, version int) (snap Snapshot, ok bool, err error) {
	return c.store.LoadSnapshot(ctx, id, kind, version)
}

// SaveSnapshot records snap as session id's snapshot of its kind,
// replacing the one before (its Seq must be in the log).
func (c *Client) SaveSnapshot(ctx context.Context, id string, snap Snapshot) error {
	select {
	case snapshotWrites <- struct{}{}:
		defer func() { <-snapshotWrites }()
	case <-ctx.Done():
		return ctx.Err()
	}
	return c.store.SaveSnapshot(ctx, id, snap)
}
