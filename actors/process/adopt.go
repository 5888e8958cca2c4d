package process

import (
	"sync/atomic"
	"syscall"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/runtime/proc"
)

// Adopted is a program that a troupe which died left running (started
// with Spec.Outlive), to be owned again by this one.
type Adopted struct {
	PID, PGID int
	// Alive reports whether the program still runs: it is not troupe's
	// child, so it cannot be waited for, only watched. It should check the
	// pid's start time, so that a reused pid does not pass.
	Alive func() bool
	// Poll is how often Alive is asked; zero means 100ms.
	Poll time.Duration
	// StopGrace is Spec.StopGrace's counterpart for Stopping.
	StopGrace time.Duration
}

// AdoptProps owns an adopted program as Props owns a started one: the owner
// (the parent when nil) gets Started at once, with Done, and Exited once
// the program is gone; Terminate and Stopping signal its group. Its exit
// status is unknown: Exited has Code -1, and Signal is SIGKILL only when
// this actor sent it. No Line comes: the program writes to its log file.
func AdoptProps(a Adopted, owner *actor.PID) *actor.Props {
	if a.Poll <= 0 {
		a.Poll = 100 * time.Millisecond
	}
	return actor.PropsFromProducer(func() actor.Actor {
		return &adopted{a: a, owner: owner}
	})
}

type adopted struct {
	a     Adopted
	owner *actor.PID

	done   chan struct{} // closed once Exited was sent
	quit   chan struct{} // ends the watch when the actor stops first
	killed atomic.Bool   // we sent SIGKILL
	esc    escalation
}

func (p *adopted) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		p.start(ctx)
	case *Terminate:
		p.terminate(m.Grace)
	case *actor.Stopping, *actor.Restarting:
		if !p.exited() {
			p.terminate(p.a.StopGrace)
		}
		close(p.quit)
	default:
		actorlog.Unhandled(actorlog.For(ctx, "pid", p.a.PID), ctx)
	}
}

func (p *adopted) start(ctx actor.Context) {
	owner := p.owner
	if owner == nil {
		owner = ctx.Parent()
	}
	root, self := ctx.ActorSystem().Root, ctx.Self()
	tell := func(msg any) { root.RequestWithCustomSender(owner, msg, self) }
	p.done, p.quit = make(chan struct{}), make(chan struct{})
	tell(&Started{PID: p.a.PID, PGID: p.a.PGID, Done: p.done})
	go p.watch(tell)
}

// watch asks Alive until the program is gone, then kills what it left in
// its group (as the reaper does for a child) and reports Exited.
func (p *adopted) watch(tell func(any)) {
	t := time.NewTicker(p.a.Poll)
	defer t.Stop()
	for p.a.Alive() {
		select {
		case <-p.quit:
			return
		case <-t.C:
		}
	}
	proc.KillGroup(p.a.PGID)
	ex := &Exited{PID: p.a.PID, Code: -1}
	if p.killed.Load() {
		ex.Signal = syscall.SIGKILL
	}
	tell(ex)
	close(p.done)
}

func (p *adopted) exited() bool { return closed(p.done) }

// terminate is process.terminate for a group known only by its id.
func (p *adopted) terminate(grace time.Duration) {
	if p.exited() {
		return
	}
	p.esc.terminate(grace, func() { proc.TermGroup(p.a.PGID) }, p.kill)
}

func (p *adopted) kill() {
	if p.a.Alive() {
		p.killed.Store(true)
		proc.KillGroup(p.a.PGID)
	}
}
