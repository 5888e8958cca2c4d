package sessions

import (
	"context"
	"fmt"
)

// Delete stops session id if it is live here, then removes its events,
// snapshot and lease from the store. A session another process hosts is
// refused with *LeaseHeldError; ErrNotFound when it has no log.
func (c *Client) Delete(ctx context.Context, id string) error {
	if err := c.Kill(ctx, id); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	return c.store.Delete(ctx, id)
}
