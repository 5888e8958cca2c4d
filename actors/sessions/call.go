package sessions

import (
	"context"
	"fmt"

	"github.com/troupehq/troupe/actors/sessions/internal/session"
)

// call is one typed request: the message a session serves, and how its
// reply reads. The blocking methods and Async share them, so both styles
// send the same message and read the same answer.
type call[R any] struct {
	msg  session.Request
	read func(reply any) (R, error)
}

// run sends k to session id and waits for its answer.
func ask[R any](ctx context.Context, c *Client, id string, k call[R]) (R, error) {
	res, err := c.request(ctx, id, k.msg)
	if err != nil {
		var zero R
		return zero, err
	}
	return k.read(res)
}

// replyAs is the reply as the type the request promises.
func replyAs[T any](res any, what string) (T, error) {
	r, ok := res.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("unexpected reply %T to %s", res, what)
	}
	return r, nil
}

// appended reads the *session.Appended that answers a write: the last
// seq it committed.
func appended(msg session.Request, what string) call[int64] {
	return call[int64]{msg: msg, read: func(res any) (int64, error) {
		a, err := replyAs[*session.Appended](res, what)
		if err != nil {
			return 0, err
		}
		return a.LastSeq, a.Err
	}}
}
