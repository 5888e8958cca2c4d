package rpc

import (
	"errors"
	"io"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/transports/stdio"
)

type inLine struct{ data []byte }
type inError struct{ err error }
type inEOF struct{ err error }

// readLines is the connection's reader: it runs until stdin ends (EOF or a
// read error), which is the only way to stop a blocked read of stdin; the
// connection owns it and is told when it is over.
func readLines(root *actor.RootContext, conn *actor.PID, in io.Reader, max int) {
	rd := stdio.NewReader(in, max)
	for {
		line, err := rd.Next()
		switch {
		case err == nil:
			root.Send(conn, &inLine{data: line})
		case errors.Is(err, stdio.ErrLineTooLong):
			root.Send(conn, &inError{err: err})
		case errors.Is(err, io.EOF):
			root.Send(conn, &inEOF{})
			return
		default:
			root.Send(conn, &inEOF{err: err})
			return
		}
	}
}
