package process

import (
	"io"
	"syscall"
	"time"
)

// Started tells the owner that the program runs. It comes before any Line.
type Started struct {
	PID  int
	PGID int // the process group, the program's own; record it to kill the group after a crash
	// Stdin is the program's stdin when Spec.Stdin is set; closing it is
	// how the owner sends EOF.
	Stdin io.WriteCloser
	// Stdout is the program's stdout with OutputStream: the owner reads it
	// to EOF, from a goroutine of its own.
	Stdout io.ReadCloser
	// Done closes once Exited has been sent, for code outside the owner's
	// mailbox (a protocol client in a goroutine) that must know the program
	// is gone and its stderr written out.
	Done <-chan struct{}
}

// Stream names one of the program's output streams.
type Stream int

const (
	Stdout Stream = iota + 1
	Stderr
)

func (s Stream) String() string {
	switch s {
	case Stdout:
		return "stdout"
	case Stderr:
		return "stderr"
	}
	return "unknown"
}

// Line is one line the program wrote, without its line ending. A line
// longer than MaxLine comes in pieces of MaxLine bytes; a last line without
// a newline comes as it is.
type Line struct {
	Stream Stream
	Text   string
}

// Exited is the last message of a run: the program ended and its output has
// been delivered, or it could not start (Err set, no Started before it).
type Exited struct {
	PID    int            // the pid Started reported; 0 when it never started
	Code   int            // the exit status; -1 when a signal ended it or it never ran
	Signal syscall.Signal // the signal that ended it, or 0
	Err    error          // why it did not start, or why waiting for it failed
}

// Terminate asks the program to end: SIGTERM to its process group, then
// SIGKILL to whatever is left after Grace (at once when Grace is not
// positive). Exited follows. A second Terminate can only shorten the
// grace.
type Terminate struct {
	Grace time.Duration
}
