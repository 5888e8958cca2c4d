package acp

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/overrides"
)

// tailPoll is how often a store-tailed attachment reads new events.
const tailPoll = 100 * time.Millisecond

// storeTail serves a read-only attachment to a cold session from the
// store, so watching never starts a session (nor takes its lease): the
// log up to the attach is the replay, then new events are read every
// tailPoll, whoever commits them.
type storeTail struct {
	stop context.CancelFunc
	// cold: nobody hosts the session (else another process does).
	cold bool
	// next is the first seq the attachment has not folded: the actor
	// moves it, the reader reads from it (so a paused client's dropped
	// events are read again).
	next atomic.Int64
	// paused: the client is behind; the reader waits rather than read
	// what would be dropped.
	paused atomic.Bool
}

// storeBatch is events read for attachment a; replayTo (first batch only,
// else -1) is the log's last seq when the attach began.
type storeBatch struct {
	a        *attachment
	events   []event.Event
	replayTo int64
	err      error
	// overrides (first batch only) are the log's update.transformed.
	overrides overrides.Map
}

var errPastReplay = errors.New("past the replay's end")

// tailStore starts the reader; leave stops it.
func (a *attachment) tailStore(c *conn, ctx actor.Context) {
	tctx, cancel := context.WithCancel(context.Background())
	tail := &storeTail{stop: cancel}
	tail.next.Store(1)
	a.tail = tail
	// The reader reads no field of a, only these and tail's atomics.
	root, self, store, id := ctx.ActorSystem().Root, ctx.Self(), c.cfg.Sessions, a.id
	go func() {
		first := &storeBatch{a: a}
		first.replayTo, first.err = store.LastSeq(tctx, id)
		if first.err == nil {
			first.overrides, first.err = readOverrides(tctx, store, id)
		}
		if first.err == nil {
			first.err = store.Load(tctx, id, 1, func(e event.Event) error {
				if e.Seq > first.replayTo {
					return errPastReplay
				}
				first.events = append(first.events, e)
				return nil
			})
			if errors.Is(first.err, errPastReplay) {
				first.err = nil
			}
		}
		root.Send(self, first)
		if first.err != nil {
			return
		}
		t := time.NewTicker(tailPoll)
		defer t.Stop()
		for {
			select {
			case <-tctx.Done():
				return
			case <-t.C:
			}
			if tail.paused.Load() {
				continue
			}
			b := &storeBatch{a: a, replayTo: -1}
			b.err = store.Load(tctx, id, tail.next.Load(), func(e event.Event) error {
				b.events = append(b.events, e)
				return nil
			})
			if tctx.Err() != nil {
				return
			}
			if b.err != nil || len(b.events) > 0 {
				root.Send(self, b)
			}
			if b.err != nil {
				return
			}
		}
	}()
}

// onStoreBatch folds what the reader read, as onEvents does a
// subscription's events.
func (c *conn) onStoreBatch(ctx actor.Context, b *storeBatch) {
	a := b.a
	if c.att[a.id] != a {
		return // it left since
	}
	if b.err != nil {
		c.log(ctx).Warn("reading the store failed", "session", a.id, "error", b.err)
		if a.replayTo < 0 {
			a.leave(c)
			delete(c.att, a.id)
			a.replay.opts.refused(SessionError(a.id, b.err))
		}
		return
	}
	if b.replayTo >= 0 {
		a.replayTo = b.replayTo
		a.mergeOverrides(b.overrides)
	}
	a.onEvents(c, ctx, b.events)
	if a.replay != nil && a.view.LastSeq >= a.replayTo {
		a.endReplay(c, ctx)
	}
	a.tail.next.Store(a.view.LastSeq + 1)
	a.tail.paused.Store(a.paused)
}

// catchUp takes a paused attachment's events again from the first it has
// not shown: a store-tailed one's reader rereads them, any other
// resubscribes.
func (a *attachment) catchUp(c *conn, ctx actor.Context) {
	a.paused = false
	if a.tail != nil {
		a.tail.paused.Store(false)
		return
	}
	a.subscribe(c, ctx, a.view.LastSeq+1, false)
}
