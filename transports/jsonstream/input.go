package jsonstream

import (
	"errors"
	"io"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/transports/stdio"
)

// inputLine, inputBad and inputEOF are what the reader goroutine reports.
type (
	inputLine struct{ data []byte }
	inputBad  struct{ err error }
	inputEOF  struct{}
)

// readInput runs in the goroutine the transport starts; it ends at EOF or a
// read error, or when the transport closes the input (its Stopping).
func readInput(root *actor.RootContext, self *actor.PID, in io.Reader, max int) {
	rd := stdio.NewReader(in, max)
	for {
		line, err := rd.Next()
		switch {
		case err == nil:
			root.Send(self, &inputLine{data: line})
		case errors.Is(err, stdio.ErrLineTooLong):
			root.Send(self, &inputBad{err: err})
		default:
			// A read error ends the conversation as EOF does: nothing more
			// can come from this client.
			root.Send(self, &inputEOF{})
			return
		}
	}
}
