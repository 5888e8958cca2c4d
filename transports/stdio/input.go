package stdio

import (
	"errors"
	"io"

	"github.com/asynkron/protoactor-go/actor"
)

// Input is one line a transport read from its client.
type Input struct{ Line []byte }

// InputTooLong reports a line over the limit; it was skipped, and reading
// goes on.
type InputTooLong struct{ Err error }

// InputEnd reports the end of the input: Err is nil at EOF, else the read
// error. Nothing follows it.
type InputEnd struct{ Err error }

// ReadInput is a transport's reader goroutine: it sends the actor to an
// Input per line of in until in ends (EOF, a read error, or the transport
// closing in as it stops), then InputEnd. A read blocked on stdin can only
// be ended that way, so the transport owns the goroutine through in.
func ReadInput(root *actor.RootContext, to *actor.PID, in io.Reader, max int) {
	rd := NewReader(in, max)
	for {
		line, err := rd.Next()
		switch {
		case err == nil:
			root.Send(to, &Input{Line: line})
		case errors.Is(err, ErrLineTooLong):
			root.Send(to, &InputTooLong{Err: err})
		case errors.Is(err, io.EOF):
			root.Send(to, &InputEnd{})
			return
		default:
			root.Send(to, &InputEnd{Err: err})
			return
		}
	}
}
