package acp

import (
	"bufio"
	"io"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/transports/stdio"
)

// StdioFraming is newline-delimited JSON-RPC over in and out (troupe
// acp, spawned by an editor). Closing in, if it is a Closer, ends the
// reader.
func StdioFraming(in io.Reader, out io.Writer, maxLine int) Framing {
	w := bufio.NewWriterSize(out, 64*1024)
	return Framing{
		Write: func(b []byte) error {
			if _, err := w.Write(b); err != nil {
				return err
			}
			return w.WriteByte('\n')
		},
		// Flushed once the writer has written what was queued: an editor
		// waits on each message, but never on one with nothing after it.
		Flush: w.Flush,
		Read:  func(root *actor.RootContext, to *actor.PID) { stdio.ReadInput(root, to, in, maxLine) },
		Close: func(string) {
			if c, ok := in.(io.Closer); ok {
				_ = c.Close()
			}
		},
	}
}
