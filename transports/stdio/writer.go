package stdio

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/troupehq/troupe/actors/actorlog"
	"io"

	"github.com/asynkron/protoactor-go/actor"
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

// WriterProps builds the writer actor over w (stdout). Writing blocks only
// this actor: its mailbox is the output buffer, and every other actor just
// sends it lines. A write error (the reader went away) is kept and
// reported by Flush; later lines are dropped.
func WriterProps(w io.Writer) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &writer{w: bufio.NewWriterSize(w, 64*1024)}
	})
}

type writer struct {
	w   *bufio.Writer
	err error
}

func (wr *writer) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *Line:
		wr.write(m.Data)
	case *JSON:
		b, err := json.Marshal(m.V)
		if err != nil {
			actorlog.For(ctx).Error("protocol message not marshalled", "type", fmt.Sprintf("%T", m.V), "error", err)
			return
		}
		wr.write(b)
	case *Flush:
		ctx.Respond(&Flushed{Err: wr.err})
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}

func (wr *writer) write(b []byte) {
	if wr.err != nil {
		return
	}
	if _, err := wr.w.Write(b); err != nil {
		wr.err = err
		return
	}
	if err := wr.w.WriteByte('\n'); err != nil {
		wr.err = err
		return
	}
	// Flushed per line: a host waits on each line, not on a buffer.
	wr.err = wr.w.Flush()
}
