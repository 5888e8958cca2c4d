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

// writerProps builds the writer over write (one message per call):
// writing blocks this actor alone, and its mailbox is the outbound queue,
// which the connection bounds by counting what it handed over against
// what Written reports.
func writerProps(write func([]byte) error) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor { return &writer{write: write} })
}

type writer struct {
	write func([]byte) error
	n     int64
	err   error
}

func (w *writer) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started, *actor.Stopping, *actor.Stopped:
	case *stdio.JSON:
		w.n++
		if w.err == nil {
			w.put(ctx, m.V)
		}
		if w.n%ackEvery == 0 {
			ctx.Send(ctx.Parent(), &Written{N: w.n, Err: w.err})
		}
	case *probe:
		ctx.Send(ctx.Parent(), &Written{N: w.n, Err: w.err})
	case *stdio.Flush:
		ctx.Send(ctx.Parent(), &Written{N: w.n, Err: w.err})
		ctx.Respond(&stdio.Flushed{Err: w.err})
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}

func (w *writer) put(ctx actor.Context, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		actorlog.For(ctx).Error("protocol message not marshalled", "type", fmt.Sprintf("%T", v), "error", err)
		return
	}
	if err := w.write(b); err != nil {
		w.err = err
		ctx.Send(ctx.Parent(), &Written{N: w.n, Err: err})
	}
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
