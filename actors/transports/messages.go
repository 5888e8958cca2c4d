package transports

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Start asks the supervisor to run a transport; it answers *Started.
type Start struct {
	Props *actor.Props
	Name  string // the child's name, unique among the running transports
	// Done receives the transport's one Done. It needs room for it (a
	// buffer of one): the supervisor never blocks on it.
	Done chan<- Done
}

// Started answers Start.
type Started struct {
	PID *actor.PID
	Err error
}

// Done is how a transport's conversation ended. A transport reports it
// once, through Finish, after everything it owes its client is written;
// for a transport that crashed or was stopped first, the supervisor makes
// it up.
type Done struct {
	Code int   // the exit status the transport asks of its process
	Err  error // why it failed; nil when it ended as its protocol says
}

// Terminate asks a transport to end because the process is shutting down
// (the first SIGTERM): abort what runs on its client's behalf, write what
// it owes, then Finish.
type Terminate struct{}

// Drain is the runtime's transports stage: the supervisor sends every
// running transport Terminate and answers *Drained once each has
// finished, stopping those that have not within Grace.
type Drain struct{ Grace time.Duration }

// Drained answers Drain; Late names the transports stopped unfinished.
type Drained struct{ Late []string }

// Output names the actor that writes a transport's output (its stdout
// writer); see Writes.
type Output struct{ PID *actor.PID }

// Writes tells the supervisor which child writes the transport's output,
// so that after a crash the lines the transport had already handed it
// still reach the client: the supervisor lets that child finish its queue
// before it stops the transport.
func Writes(ctx actor.Context, writer *actor.PID) {
	if p := ctx.Parent(); p != nil {
		ctx.Request(p, &Output{PID: writer})
	}
}

// Finish reports a transport's Done to its supervisor. It is a request so
// that the supervisor knows which child it comes from.
func Finish(ctx actor.Context, d Done) {
	if p := ctx.Parent(); p != nil {
		ctx.Request(p, &d)
	}
}

// Escalate is the strategy a transport supervises its own children (its
// stdout writer) with: their failure is the transport's, since it cannot
// go on without them.
var Escalate = actor.NewOneForOneStrategy(0, 0, func(any) actor.Directive { return actor.EscalateDirective })
