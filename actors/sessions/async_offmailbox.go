package sessions

import (
	"context"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
)

// Create is Client.Create.
func (a Async) Create(id string, created event.CreatedPayload, then func(error)) {
	send(a, id, appended(&session.Create{Created: created}, "create"), only[int64](then))
}

// Fork is Client.Fork: then gets the new session's id.
func (a Async) Fork(req ForkRequest, then func(string, error)) {
	created := req.Session
	created.ParentSessionID, created.ForkedFromSeq, created.ForkedFromEntry = req.Parent, req.Seq, req.Entry
	// A fork is not interactive until a person prompts it, as Hydra's
	// forks are: one only looked at (a TUI's /btw side question, whose
	// prompts are ancillary) stays out of default lists.
	created.Interactive = new(false)
	id := NewID()
	a.Create(id, created, func(err error) {
		if err != nil {
			id = ""
		}
		then(id, err)
	})
}

// The methods below are the facade's blocking work (store reads, the
// user's shell commands): each runs in a goroutine of its own and answers
// on the actor's mailbox, like the requests above.

// Meta is Client.Meta.
func (a Async) Meta(id string, then func(Meta, error)) {
	offMailbox(a, requestTimeout, func(ctx context.Context) (Meta, error) { return a.c.Meta(ctx, id) }, then)
}

// Inherited is Client.Inherited.
func (a Async) Inherited(m Meta, then func([]event.Event, error)) {
	offMailbox(a, requestTimeout, func(ctx context.Context) ([]event.Event, error) { return a.c.Inherited(ctx, m) }, then)
}

// InheritedShown is Client.InheritedShown.
func (a Async) InheritedShown(m Meta, then func([]event.Event, error)) {
	offMailbox(a, requestTimeout, func(ctx context.Context) ([]event.Event, error) { return a.c.InheritedShown(ctx, m) }, then)
}

// RunBash is Client.RunBash; cancelling ctx kills the command, whose
// output so far is still the answer.
func (a Async) RunBash(ctx context.Context, cwd, command string, then func(event.BashExecutedPayload, error)) {
	offMailbox(a, -1, func(context.Context) (event.BashExecutedPayload, error) { return a.c.RunBash(ctx, cwd, command) }, then)
}

type offResult[R any] struct {
	r   R
	err error
}

// offMailbox runs fn in a goroutine, bounded by timeout (<0: fn bounds
// itself), and then on the actor's mailbox with its answer.
func offMailbox[R any](a Async, timeout time.Duration, fn func(context.Context) (R, error), then func(R, error)) {
	sys := a.ctx.ActorSystem()
	f := actor.NewFuture(sys, timeout)
	go func() {
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if timeout >= 0 {
			ctx, cancel = context.WithTimeout(ctx, timeout)
		}
		defer cancel()
		r, err := fn(ctx)
		sys.Root.Send(f.PID(), &offResult[R]{r: r, err: err})
	}()
	a.ctx.ReenterAfter(f, func(res any, err error) {
		var zero R
		if err != nil {
			then(zero, fmt.Errorf("no answer in time: %w", err))
			return
		}
		o, ok := res.(*offResult[R])
		if !ok {
			then(zero, fmt.Errorf("unexpected answer %T", res))
			return
		}
		then(o.r, o.err)
	})
}

// Running is Client.Running, read off the mailbox.
func (a Async) Running(then func(map[string]bool, error)) {
	offMailbox(a, requestTimeout, func(ctx context.Context) (map[string]bool, error) { return a.c.Running(ctx) }, then)
}

// Busy is Client.Busy.
func (a Async) Busy(then func(map[string]bool, error)) {
	offMailbox(a, requestTimeout, func(ctx context.Context) (map[string]bool, error) { return a.c.Busy(ctx) }, then)
}
