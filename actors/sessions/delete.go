package sessions

import (
	"context"
	"fmt"
)

// Delete kills session id, then removes its log and row from the store;
// ErrNotFound when it has none. A session others were forked from is
// refused (persistence.ErrHasForks). A request that reaches the session
// again afterwards starts an empty one.
func (c *Client) Delete(ctx context.Context, id string) error {
	if _, err := c.Meta(ctx, id); err != nil {
		return err
	}
	if err := c.Kill(ctx, id); err != nil {
		return err
	}
	if err := c.store.DeleteSession(ctx, id); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return nil
}

// Delete is Client.Delete.
func (a Async) Delete(id string, then func(error)) {
	offMailbox(a, requestTimeout, func(ctx context.Context) (struct{}, error) { return struct{}{}, a.c.Delete(ctx, id) }, only[struct{}](then))
}
