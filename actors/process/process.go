package process

import (
	"io"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
)

type process struct {
	spec  Spec
	owner *actor.PID

	group  *group        // nil until the program started
	done   chan struct{} // closed once Exited was sent
	handed []io.Closer   // pipe ends handed to the owner; closed on stop

	esc escalation // the pending SIGKILL of a Terminate, if any
}

func (p *process) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		p.start(ctx)
	case *Terminate:
		p.terminate(m.Grace)
	case *actor.Stopping, *actor.Restarting:
		p.stop()
	default:
		actorlog.Unhandled(actorlog.For(ctx, "path", p.spec.Path), ctx)
	}
}

// start runs the program and hands the waiting to a goroutine; starting a
// process does not block.
func (p *process) start(ctx actor.Context) {
	owner := p.owner
	if owner == nil {
		owner = ctx.Parent()
	}
	root, self, log := ctx.ActorSystem().Root, ctx.Self(), actorlog.For(ctx, "path", p.spec.Path)
	tell := func(msg any) { root.RequestWithCustomSender(owner, msg, self) }
	p.done = make(chan struct{})

	cmd, ours, err := spawn(p.spec)
	if err != nil {
		log.Debug("process did not start", "error", err)
		tell(&Exited{Code: -1, Err: err})
		close(p.done)
		return
	}
	p.group = &group{cmd: cmd}
	started := &Started{PID: cmd.Process.Pid, PGID: cmd.PGID(), Done: p.done}
	var out outputs
	if ours.stdin != nil {
		started.Stdin = ours.stdin
		p.handed = append(p.handed, ours.stdin)
	}
	switch {
	case ours.stdout == nil: // an outliving program writes to its log file
	case p.spec.Output == OutputStream:
		started.Stdout = ours.stdout
		p.handed = append(p.handed, ours.stdout)
	default:
		out.add(ours.stdout, func() { readLines(ours.stdout, Stdout, tell) })
	}
	switch {
	case ours.stderr == nil:
	case p.spec.Stderr != nil:
		out.add(ours.stderr, func() { copyTo(p.spec.Stderr, ours.stderr) })
	default:
		out.add(ours.stderr, func() { readLines(ours.stderr, Stderr, tell) })
	}
	log.Debug("process started", "pid", started.PID)
	tell(started) // before the readers can send a Line
	out.start()
	grace := p.spec.PipeGrace
	if grace <= 0 {
		grace = DefaultPipeGrace
	}
	go reap(p.group, &out, grace, tell, p.done)
}

func (p *process) exited() bool { return closed(p.done) }

// closed reports whether ch is closed, without waiting.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// terminate sends SIGTERM now and arms SIGKILL for grace later, unless an
// earlier Terminate already armed it sooner.
func (p *process) terminate(grace time.Duration) {
	if p.group == nil || p.exited() {
		return
	}
	p.esc.terminate(grace, p.group.term, p.group.kill)
}

// escalation is a Terminate: SIGTERM now, SIGKILL after the grace, which a
// later Terminate can only shorten.
type escalation struct {
	timer *time.Timer
	at    time.Time
}

func (e *escalation) terminate(grace time.Duration, term, kill func()) {
	if grace <= 0 {
		kill()
		return
	}
	term()
	at := time.Now().Add(grace)
	if e.timer != nil {
		if !at.Before(e.at) {
			return
		}
		e.timer.Stop()
	}
	e.at, e.timer = at, time.AfterFunc(grace, kill)
}

// stop ends the program without waiting for it: the reaper reports Exited.
// A pending SIGKILL stays armed, since the program may still run.
func (p *process) stop() {
	if p.group != nil && !p.exited() {
		if p.spec.StopGrace > 0 {
			p.terminate(p.spec.StopGrace)
		} else {
			p.group.kill()
		}
	}
	for _, c := range p.handed {
		_ = c.Close()
	}
	p.handed = nil
}
