package process

import (
	"io"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

const (
	// MaxLine is the longest Line; longer lines are split.
	MaxLine = 64 << 10
	// DefaultPipeGrace is Spec.PipeGrace when it is zero.
	DefaultPipeGrace = time.Second
)

// Output says how the program's stdout reaches the owner.
type Output int

const (
	OutputLines  Output = iota // Line messages
	OutputStream               // Started.Stdout, a reader
)

// Spec is the program to run and how.
type Spec struct {
	Path string   // looked up in PATH when it has no slash, as exec.Command does
	Args []string // the arguments, without the program's name
	Env  []string // nil: troupe's environment
	Dir  string   // "": troupe's working directory

	Stdin  bool   // hand the program's stdin to the owner; otherwise it reads /dev/null
	Output Output // how stdout is delivered
	// Stderr, when set, receives the program's stderr, written from a
	// goroutine the actor owns, instead of Line messages. Its errors are
	// ignored: the program must never block on a full pipe.
	Stderr io.Writer

	// Outlive keeps the program running when troupe dies (proc.Cmd's
	// Outlive), for a later troupe to adopt with AdoptProps. Its stdout and
	// stderr go to LogFile (created, or truncated at each start), since
	// pipes to troupe would break: no Line messages come. Stdin must be
	// unset.
	Outlive bool
	LogFile string

	// StopGrace, when positive, makes Stopping send SIGTERM and SIGKILL
	// only after this grace; otherwise Stopping sends SIGKILL at once.
	StopGrace time.Duration
	// PipeGrace bounds the wait for the output pipes to close once the
	// program exited and its group was killed (something that left the
	// group may hold them); zero means DefaultPipeGrace.
	PipeGrace time.Duration
}

// Props runs spec as an actor that reports to owner (the parent when nil).
// The program starts when the actor does.
func Props(spec Spec, owner *actor.PID) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &process{spec: spec, owner: owner}
	})
}
