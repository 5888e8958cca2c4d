package transports

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
)

// ErrStopped is the error of a transport stopped before it finished.
var ErrStopped = errors.New("stopped before it finished")

// Props builds the transports supervisor.
func Props() *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &supervisor{children: map[string]*child{}, outputs: map[string]*child{}}
	})
}

type supervisor struct {
	children map[string]*child // by pid
	outputs  map[string]*child // a crashed transport's writer, finishing its queue, by pid
	drain    *drain
}

type child struct {
	name   string
	pid    *actor.PID
	done   chan<- Done
	output *actor.PID // the writer it named with Writes
	// reported: its Done went out; failed: why it is being stopped.
	reported bool
	failed   error
	flushed  *time.Timer // bounds the wait for output after a crash
}

// OutputGrace bounds how long a crashed transport's writer may take to
// write the lines it was handed before the transport is stopped.
const OutputGrace = 5 * time.Second

type drain struct {
	to    *actor.PID // who asked
	late  []string
	timer *time.Timer
}

// graceOver ends a drain's wait.
type graceOver struct{}

// crashed is a transport's failure, to act on in mailbox order.
type crashed struct{ pid *actor.PID }

// outputOver ends the wait for a crashed transport's output.
type outputOver struct{ pid *actor.PID }

func (s *supervisor) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started, *actor.Stopping, *actor.Stopped:
	case *Start:
		s.start(ctx, m)
	case *Done:
		s.finished(ctx, m)
	case *Output:
		if c := s.children[senderID(ctx)]; c != nil {
			c.output = m.PID
		}
	case *crashed:
		s.stopCrashed(ctx, m.pid)
	case *outputOver:
		ctx.Stop(m.pid)
	case *actor.Terminated:
		s.terminated(ctx, m.Who)
	case *Drain:
		s.startDrain(ctx, m)
	case *graceOver:
		s.graceOver(ctx)
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}

func (s *supervisor) start(ctx actor.Context, m *Start) {
	if s.drain != nil {
		ctx.Respond(&Started{Err: fmt.Errorf("start transport %s: shutting down", m.Name)})
		return
	}
	pid, err := ctx.SpawnNamed(m.Props, m.Name)
	if err != nil {
		ctx.Respond(&Started{Err: fmt.Errorf("start transport %s: %w", m.Name, err)})
		return
	}
	s.children[pid.Id] = &child{name: m.Name, pid: pid, done: m.Done}
	ctx.Respond(&Started{PID: pid})
}

// finished passes a transport's Done on and stops it: its conversation is
// over.
func (s *supervisor) finished(ctx actor.Context, d *Done) {
	c := s.children[senderID(ctx)]
	if c == nil || c.reported {
		return
	}
	s.report(c, *d)
	ctx.Stop(c.pid)
}

func senderID(ctx actor.Context) string {
	if p := ctx.Sender(); p != nil {
		return p.Id
	}
	return ""
}

func (s *supervisor) report(c *child, d Done) {
	c.reported = true
	if c.done != nil {
		c.done <- d
	}
}

// HandleFailure makes the supervisor its transports' strategy: a crashed
// transport is stopped, never restarted, and its Done carries the panic.
// The stop is decided on the mailbox (crashed), behind the Output the
// transport sent before it crashed.
func (s *supervisor) HandleFailure(sys *actor.ActorSystem, sup actor.Supervisor, pid *actor.PID, _ *actor.RestartStatistics, reason, _ any) {
	c := s.children[pid.Id]
	ctx, ok := sup.(actor.Context)
	if c == nil || c.failed != nil || !ok {
		sup.StopChildren(pid)
		return
	}
	c.failed = fmt.Errorf("transport %s failed: %v", c.name, reason)
	sys.Logger().Error("transport failed", "transport", c.name, "reason", fmt.Sprint(reason))
	ctx.Send(ctx.Self(), &crashed{pid: pid})
}

// stopCrashed stops a crashed transport. Its writer first writes what it
// was handed (Writes), within OutputGrace: the poison pill queues behind
// those lines, and the writer's end (the supervisor watches it) or the
// grace stops the transport.
func (s *supervisor) stopCrashed(ctx actor.Context, pid *actor.PID) {
	c := s.children[pid.Id]
	if c == nil {
		return
	}
	if c.output == nil {
		ctx.Stop(pid)
		return
	}
	s.outputs[c.output.Id] = c
	ctx.Watch(c.output)
	ctx.Poison(c.output)
	self, root := ctx.Self(), ctx.ActorSystem().Root
	c.flushed = time.AfterFunc(OutputGrace, func() { root.Send(self, &outputOver{pid: pid}) })
}

// terminated reports a Done for a transport that stopped without one, and
// stops a crashed transport once its writer is done.
func (s *supervisor) terminated(ctx actor.Context, pid *actor.PID) {
	if c := s.outputs[pid.Id]; c != nil {
		delete(s.outputs, pid.Id)
		ctx.Stop(c.pid)
		return
	}
	c := s.children[pid.Id]
	if c == nil {
		return
	}
	delete(s.children, pid.Id)
	if c.flushed != nil {
		c.flushed.Stop()
	}
	if !c.reported {
		err := c.failed
		if err == nil {
			err = fmt.Errorf("transport %s: %w", c.name, ErrStopped)
		}
		s.report(c, Done{Code: 1, Err: err})
	}
	s.maybeDrained(ctx)
}

func (s *supervisor) startDrain(ctx actor.Context, m *Drain) {
	if s.drain != nil {
		ctx.Respond(&Drained{})
		return
	}
	s.drain = &drain{to: ctx.Sender()}
	for _, c := range s.children {
		if !c.reported {
			ctx.Send(c.pid, &Terminate{})
		}
	}
	self, root := ctx.Self(), ctx.ActorSystem().Root
	s.drain.timer = time.AfterFunc(m.Grace, func() { root.Send(self, &graceOver{}) })
	s.maybeDrained(ctx)
}

// graceOver stops the transports still running.
func (s *supervisor) graceOver(ctx actor.Context) {
	if s.drain == nil {
		return
	}
	for _, c := range s.children {
		if !c.reported && c.failed == nil {
			c.failed = fmt.Errorf("transport %s did not finish in time: %w", c.name, ErrStopped)
			s.drain.late = append(s.drain.late, c.name)
			ctx.Stop(c.pid)
		}
	}
}

// maybeDrained answers a drain once every transport has stopped.
func (s *supervisor) maybeDrained(ctx actor.Context) {
	if s.drain == nil || s.drain.to == nil || len(s.children) > 0 {
		return
	}
	s.drain.timer.Stop()
	ctx.Send(s.drain.to, &Drained{Late: s.drain.late})
	s.drain.to = nil
}
