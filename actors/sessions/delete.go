package sessions

import (
	"context"
	"fmt"
)

// Delete stops session id if it is live here, then removes its events,
// snapshot and lease from the store. A session another process hosts is
// refused with *LeaseHeldError, one others were forked from with
// ErrHasForks (their conversations start with its log), and ErrNotFound
// when it has no snapshot. A request that reaches the session again
// afterwards starts an empty one.
func (c *Client) Delete(ctx context.Context, id string) error {
	if c.cluster != nil {
		return c.cluster.Delete(ctx, id) // on the member whose store has it
	}
	if _, err := c.Meta(ctx, id); err != nil {
		return err
	}
	if err := c.Kill(ctx, id); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	return c.store.Delete(ctx, id)
}

// Delete is Client.Delete.
func (a Async) Delete(id string, then func(error)) {
	offMailbox(a, requestTimeout, func(ctx context.Context) (struct{}, error) { return struct{}{}, a.c.Delete(ctx, id) }, only[struct{}](then))
}
