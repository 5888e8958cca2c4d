package stdio

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
)

// Line asks the writer to write one line (a newline is added).
type Line struct{ Data []byte }

// JSON asks the writer to marshal V and write it as one line. A value that
// cannot be marshalled is a programming error reported through OnError.
type JSON struct{ V any }

// Flush is answered with *Flushed once every line sent before it is written.
type Flush struct{}

// Flushed answers Flush; Err is the first write error, if any.
type Flushed struct{ Err error }

// wake tells the writer its Queue has lines. It carries nothing, so one
// value serves every wake-up.
type wake struct{}

var wakeUp = &wake{}

// chunk bounds one write(2): large enough that a burst of lines costs a
// few calls, small enough that a slow reader's progress is seen (the rpc
// meter counts the bytes written) before the whole burst is out.
const chunk = 64 << 10

// keepSpare is the largest buffer kept for the next burst; a larger one,
// grown by a burst of full partials, is left to the collector.
const keepSpare = 4 << 20

// WriterProps builds the writer actor over w (stdout). Writing blocks only
// this actor: every other actor just hands it lines, as Line or JSON
// messages or through q (QueueWriterProps). A write error (the reader
// went away) is kept and reported by Flush; later lines are dropped.
func WriterProps(w io.Writer) *actor.Props {
	return QueueWriterProps(w, &Queue{})
}

// QueueWriterProps is WriterProps with the lines of q written too. A
// sender uses either q or messages: the two are not ordered with each
// other, except that Flush waits for both.
func QueueWriterProps(w io.Writer, q *Queue) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &writer{w: w, q: q}
	})
}

type writer struct {
	w     io.Writer
	q     *Queue
	spare []byte
	err   error
}

func (wr *writer) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		self, root := ctx.Self(), ctx.ActorSystem().Root
		wr.q.start(func() { root.Send(self, wakeUp) })
		wr.drain()
	case *wake:
		wr.drain()
	case *Line:
		wr.q.put(m.Data)
		wr.drain()
	case *JSON:
		b, err := json.Marshal(m.V)
		if err != nil {
			actorlog.For(ctx).Error("protocol message not marshalled", "type", fmt.Sprintf("%T", m.V), "error", err)
			return
		}
		wr.q.put(b)
		wr.drain()
	case *Flush:
		wr.drain()
		ctx.Respond(&Flushed{Err: wr.err})
	case *actor.Stopping:
		// Lines queued before the stop (a crashed transport's last ones)
		// still go out.
		wr.drain()
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}

// drain writes everything queued, until the queue is found empty: a host
// waits on each line, so none is left in a buffer.
func (wr *writer) drain() {
	for {
		buf := wr.q.take(wr.spare)
		if buf == nil {
			return
		}
		wr.write(buf)
		if cap(buf) > keepSpare {
			buf = nil
		}
		wr.spare = buf[:0]
	}
}

func (wr *writer) write(b []byte) {
	for len(b) > 0 && wr.err == nil {
		n := min(len(b), chunk)
		_, wr.err = wr.w.Write(b[:n])
		b = b[n:]
	}
}
