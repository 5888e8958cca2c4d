package plugins

import (
	"fmt"
	"os"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/samber/lo"

	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/process"
)

// member is one registered process: at most one run of its program at a
// time.
type member struct {
	spec Spec
	opts Options

	status    string
	pid       int
	proc      *actor.PID // the current run's process actor
	run       int        // numbers runs, so a stale timer is told apart
	token     string     // the current run's
	startedAt time.Time
	restart   *time.Timer // pending while crashed
	attempt   int         // restarts since the last stable run
	restarts  int
	lastExit  *int
	// out is the current run's log file (Options.LogDir), nil without
	// one; opened at launch, closed when the run ends.
	out *os.File
}

// restartNow is the backoff timer's message.
type restartNow struct{ run int }

func (m *member) id() Identity { return Identity{Kind: m.opts.Kind, Name: m.spec.Name} }

func (m *member) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		m.status = StatusStopped
		if *m.spec.Enabled {
			m.launch(ctx)
		} else {
			m.changed(ctx)
		}
	case *Control:
		m.control(ctx, msg.Op)
	case *process.Started:
		if m.current(ctx) {
			m.pid, m.status = msg.PID, StatusRunning
			m.changed(ctx)
		}
	case *process.Line:
		if m.current(ctx) {
			m.opts.Log.Debug(m.opts.Kind, "name", m.spec.Name, "stream", msg.Stream.String(), "line", msg.Text)
			m.writeLine(msg.Text)
		}
	case *process.Exited:
		if m.current(ctx) {
			m.exited(ctx, msg)
		}
	case *restartNow:
		if msg.run == m.run && m.status == StatusCrashed {
			m.launch(ctx)
		}
	case *actor.Stopping:
		m.halt(ctx)
	case *actor.Stopped, *actor.Restarting, *actor.Terminated:
	default:
		actorlog.Unhandled(actorlog.For(ctx, m.opts.Kind, m.spec.Name), ctx)
	}
}

func (m *member) current(ctx actor.Context) bool {
	return m.proc != nil && ctx.Sender() != nil && ctx.Sender().Equal(m.proc)
}

func (m *member) info() Info {
	in := Info{Name: m.spec.Name, Command: m.spec.Command, Args: m.spec.Args, Env: m.spec.Env,
		Enabled: *m.spec.Enabled, PID: m.pid, Status: m.status, RestartCount: m.restarts,
		LastExitCode: m.lastExit, LogPath: m.logPath()}
	if m.proc != nil {
		in.StartedAt = new(m.startedAt.UnixMilli())
	}
	return in
}

// changed tells the supervisor the new state, for its list and OnEvent.
func (m *member) changed(ctx actor.Context) {
	ctx.Send(ctx.Parent(), &changed{info: m.info()})
}

// launch starts a run with a fresh token.
func (m *member) launch(ctx actor.Context) {
	m.run++
	m.pid, m.startedAt = 0, time.Now()
	m.openLog()
	m.token = m.opts.Tokens.mint(m.id())
	env := append(os.Environ(), lo.MapToSlice(m.spec.Env, func(k, v string) string { return k + "=" + v })...)
	env = append(env, "HYDRA_ACP_TOKEN="+m.token, "TROUPE_TOKEN="+m.token,
		"HYDRA_ACP_URL="+m.opts.URL, "TROUPE_ACP_URL="+m.opts.URL)
	spec := process.Spec{Path: m.spec.Command[0], Args: append(append([]string{}, m.spec.Command[1:]...), m.spec.Args...),
		Env: env, StopGrace: m.opts.StopGrace}
	m.status = StatusStarting
	m.proc = ctx.SpawnPrefix(process.Props(spec, nil), "process")
	m.changed(ctx)
}

// exited: the program ended on its own (or never started); it is started
// again after the backoff.
func (m *member) exited(ctx actor.Context, ex *process.Exited) {
	m.opts.Tokens.revoke(m.token)
	m.token = ""
	ctx.Stop(m.proc)
	m.proc, m.pid = nil, 0
	m.lastExit = new(ex.Code)
	m.closeLog()
	policy := m.opts.backoff()
	if policy.Stable(time.Since(m.startedAt)) {
		m.attempt = 0
	}
	delay := policy.Delay(m.attempt)
	m.attempt++
	m.restarts++
	m.status = StatusCrashed
	m.opts.Log.Warn(m.opts.Kind+" exited; restarting after a backoff", "name", m.spec.Name,
		"exit", describe(ex), "delay", delay)
	root, self, run := ctx.ActorSystem().Root, ctx.Self(), m.run
	m.restart = time.AfterFunc(delay, func() { root.Send(self, &restartNow{run: run}) })
	m.changed(ctx)
}

func describe(ex *process.Exited) string {
	switch {
	case ex.Err != nil:
		return ex.Err.Error()
	case ex.Signal != 0:
		return fmt.Sprintf("signal %d (%s)", int(ex.Signal), ex.Signal)
	}
	return fmt.Sprintf("exit status %d", ex.Code)
}

// control is start, stop or restart; the answer is the new state. A stop
// does not wait for the program: its process actor ends it (SIGTERM, then
// SIGKILL after the grace).
func (m *member) control(ctx actor.Context, op string) {
	running := m.status == StatusRunning || m.status == StatusStarting
	switch op {
	case "start":
		if running {
			ctx.Respond(&Reply{Info: m.info(), Err: refuse(ErrConflict, m.opts.Kind+" "+m.spec.Name+" is already "+m.status)})
			return
		}
		m.halt(ctx)
		m.attempt = 0
		m.launch(ctx)
	case "stop":
		if m.status == StatusStopped {
			ctx.Respond(&Reply{Info: m.info(), Err: refuse(ErrConflict, m.opts.Kind+" "+m.spec.Name+" is already stopped")})
			return
		}
		m.halt(ctx)
		m.changed(ctx)
	case "restart":
		m.halt(ctx)
		m.attempt = 0
		m.launch(ctx)
	default:
		ctx.Respond(&Reply{Err: refuse(ErrInvalid, "unknown operation "+op)})
		return
	}
	ctx.Respond(&Reply{Info: m.info()})
}

// halt ends the current run, if any, and cancels a pending restart: the
// status is stopped until the next start.
func (m *member) halt(ctx actor.Context) {
	if m.restart != nil {
		m.restart.Stop()
		m.restart = nil
	}
	m.run++ // a timer's message already sent is stale now
	m.opts.Tokens.revoke(m.token)
	m.token = ""
	if m.proc != nil {
		ctx.Stop(m.proc)
		m.proc = nil
	}
	m.closeLog()
	m.pid, m.status = 0, StatusStopped
}
