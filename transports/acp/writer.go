package acp

import (
	"encoding/json"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/transports/stdio"
)

// Written tells the connection how many messages its writer has written
// so far, and the write error that stopped it, if any.
type Written struct {
	N   int64
	Err error
}

// ackEvery is how often the writer reports progress; the outbound limit
// is far above it.
const ackEvery = 64

// flushEvery bounds what one flush sends: large enough that a burst costs
// a few write calls, small enough that a slow reader's progress is
// reported before the whole burst is out.
const flushEvery = 64 << 10

// keepSpare is the largest item slice kept for the next burst.
const keepSpare = 1 << 16

// wake tells the writer its outbox has messages; one value serves all.
type wake struct{}

var wakeUp = &wake{}

// writerProps builds the writer over f's Write and Flush: writing blocks
// this actor alone; the outbox is the outbound queue, which the
// connection bounds by counting what it queued against what Written
// reports.
func writerProps(f Framing, out *outbox) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor { return &writer{f: f, out: out} })
}

type writer struct {
	f        Framing
	out      *outbox
	spare    []outItem
	n        int64 // messages written (flushed)
	reported int64
	err      error
}

func (w *writer) Receive(ctx actor.Context) {
	switch ctx.Message().(type) {
	case *actor.Started:
		self, root := ctx.Self(), ctx.ActorSystem().Root
		w.out.start(func() { root.Send(self, wakeUp) })
		w.drain(ctx)
	case *wake:
		w.drain(ctx)
	case *probe:
		w.drain(ctx)
		w.report(ctx)
	case *stdio.Flush:
		w.drain(ctx)
		w.report(ctx)
		ctx.Respond(&stdio.Flushed{Err: w.err})
	case *actor.Stopping:
		w.drain(ctx) // a crashed connection's last messages still go out
	case *actor.Stopped:
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}

// drain writes everything queued, flushing every flushEvery bytes and at
// the end, until the outbox is found empty: a client waits on each
// message, so none is left in a buffer.
func (w *writer) drain(ctx actor.Context) {
	for {
		items := w.out.take(w.spare)
		if items == nil {
			return
		}
		pending, done := 0, 0
		for i := range items {
			if w.err == nil {
				pending += w.put(ctx, items[i])
			}
			items[i] = outItem{}
			done++
			if pending >= flushEvery {
				w.flush(ctx, done)
				pending, done = 0, 0
			}
		}
		w.flush(ctx, done)
		if cap(items) > keepSpare {
			items = nil
		}
		w.spare = items[:0]
	}
}

// put writes one message (maybe only into the framing's buffer) and
// returns its size.
func (w *writer) put(ctx actor.Context, it outItem) int {
	b := it.raw
	if b == nil {
		var err error
		if b, err = json.Marshal(it.v); err != nil {
			actorlog.For(ctx).Error("protocol message not marshalled", "type", fmt.Sprintf("%T", it.v), "error", err)
			return 0
		}
	}
	if err := w.f.Write(b); err != nil {
		w.fail(ctx, err)
	}
	return len(b)
}

// flush pushes out what was written and counts done more messages out;
// the connection hears every ackEvery.
func (w *writer) flush(ctx actor.Context, done int) {
	if w.err == nil && w.f.Flush != nil {
		if err := w.f.Flush(); err != nil {
			w.fail(ctx, err)
		}
	}
	w.n += int64(done)
	if w.n-w.reported >= ackEvery {
		w.report(ctx)
	}
}

func (w *writer) report(ctx actor.Context) {
	w.reported = w.n
	ctx.Send(ctx.Parent(), &Written{N: w.n, Err: w.err})
}

func (w *writer) fail(ctx actor.Context, err error) {
	if w.err != nil {
		return
	}
	w.err = err
	ctx.Send(ctx.Parent(), &Written{N: w.n, Err: err})
}

// probe asks the writer for a Written once it has written everything
// handed to it before.
type probe struct{}

// flow counts the messages handed to the writer and written.
type flow struct {
	queued, written int64
	failed          bool
	probing         bool // a probe is out: a Written will come
}

// behind reports a client that has not read what it was sent: past the
// outbound limit, live events wait in the store.
func (c *conn) behind() bool { return c.flow.queued-c.flow.written > int64(c.cfg.OutboundLimit) }

// pause stops taking the attachment's live events; resume reads them
// again from the store, from the first not shown.
func (a *attachment) pause(c *conn, ctx actor.Context) {
	a.paused = true
	a.unsubscribe(c)
	c.probe(ctx)
	c.log(ctx).Debug("client behind: catching up from the store later", "session", a.id, "from", a.view.LastSeq+1)
}

func (c *conn) onWritten(ctx actor.Context, m *Written) {
	c.flow.written = max(c.flow.written, m.N)
	if m.Err != nil {
		if !c.flow.failed {
			c.flow.failed = true
			c.log(ctx).Info("client gone: writing failed", "error", m.Err)
			c.close(ctx)
		}
		return
	}
	c.flow.probing = false
	if c.flow.queued-c.flow.written > int64(c.cfg.OutboundLimit)/2 {
		c.probe(ctx) // acks come every ackEvery messages: ask for the next one
		return
	}
	for _, a := range c.att {
		if a.paused {
			a.catchUp(c, ctx)
		}
	}
}

// probe asks the writer to report once what is queued now is written, so
// a paused attachment learns when to resume even if no ack is due.
func (c *conn) probe(ctx actor.Context) {
	if c.flow.probing || !c.anyPaused() {
		return
	}
	c.flow.probing = true
	ctx.Send(c.writer, &probe{})
}

func (c *conn) anyPaused() bool {
	for _, a := range c.att {
		if a.paused {
			return true
		}
	}
	return false
}
