package sessions

import (
	"context"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/session"
)

// Kill asks the registry to stop session ID's actor (the session goes
// cold; its log stays); the reply is *Killed once the actor has stopped.
type Kill struct{ ID string }

// Killed answers Kill. WasLive is false when the session had no actor.
type Killed struct{ WasLive bool }

// Kill stops session id's actor, leaving it cold: a run under way stops as
// at shutdown and is recovered when the session next starts. It returns
// once the actor has stopped; a session with no actor is left as it is.
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

// kill stops a live session at once, whatever it is doing; the asker is
// answered when its Terminated arrives. Requests routed to it meanwhile
// wait and start it again.
func (r *registry) kill(ctx actor.Context, m *Kill) {
	e, ok := r.live[m.ID]
	if !ok {
		ctx.Respond(&Killed{})
		return
	}
	if ctx.Sender() != nil {
		e.killers = append(e.killers, ctx.Sender())
	}
	if e.stopping {
		return
	}
	e.stopping = true
	ctx.Send(e.pid, &session.Passivate{})
}
