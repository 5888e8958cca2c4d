package sessions

import (
	"context"
	"fmt"
	"time"
)

// Kill stops session id's actor: the session goes cold (its state stays
// in the store) and its subscribers get Closed. A run in progress is cut
// as by a crash; cancel it first to end it cleanly. Killing a session
// that is not live does nothing.
func (c *Client) Kill(ctx context.Context, id string) error {
	timeout := requestTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	res, err := c.root.RequestFuture(c.registry, &Kill{ID: id}, timeout).Result()
	if err != nil {
		return &UnreachableError{Session: id, Err: fmt.Errorf("kill: %w", err)}
	}
	_, err = replyAs[*Killed](res, "kill")
	return err
}

// Kill is Client.Kill.
func (a Async) Kill(id string, then func(error)) {
	offMailbox(a, requestTimeout, func(ctx context.Context) (struct{}, error) { return struct{}{}, a.c.Kill(ctx, id) }, only[struct{}](then))
}
