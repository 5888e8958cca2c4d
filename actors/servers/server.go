package servers

import (
	"cmp"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/process"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/runtime/llamaconfig"
	"github.com/troupehq/troupe/runtime/metrics"
)

// server is one config's llama-server: at most one program at a time.
type server struct {
	name string
	opts Options

	cfg       llamaconfig.Config
	fixedPort int // asked for by Start or the config; 0 picks one per run
	port      int // the current run's
	status    string
	pid       int

	proc     *actor.PID  // the process actor of the current run
	run      int         // numbers runs, so a stale message is told apart
	poller   *poller     // the current run's /health poll
	restart  *time.Timer // the pending restart, while StatusRestarting
	healthy  time.Time   // when the current run answered 200
	attempt  int         // restarts since the last stable run
	restarts int
	termed   bool // we sent SIGTERM to the current run

	startWaiters []*actor.PID
	stopWaiters  []*actor.PID
}

// healthy200 says run's /health answered 200.
type healthy200 struct{ run int }

// restartNow is the backoff timer's message.
type restartNow struct{ run int }

func (s *server) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		s.status = StatusStopped
	case *Start:
		s.start(ctx, m)
	case *Adopt:
		s.adopt(ctx, m)
	case *Stop:
		s.stop(ctx, m)
	case *process.Started:
		if s.current(ctx) {
			s.pid = m.PID
			ctx.Send(ctx.Parent(), &record{r: persistence.NewServerRecord(s.name, m.PID, m.PGID, s.cfg.Host, s.port)})
			if s.termed {
				return // stopped before it ran: no need to see it load
			}
			s.set(ctx, StatusLoading, Event{})
			s.poller = startPoll(ctx, s.run, s.cfg.Host, s.port, s.opts.PollEvery)
		}
	case *process.Line:
		if s.current(ctx) {
			s.opts.Log.Debug("llama-server", "config", s.name, "stream", m.Stream.String(), "line", m.Text)
		}
	case *process.Exited:
		if s.current(ctx) {
			s.exited(ctx, m)
		}
	case *healthy200:
		if m.run == s.run && s.status == StatusLoading {
			s.healthy = time.Now()
			s.set(ctx, StatusStarted, Event{})
			s.answerStarts(ctx, nil)
		}
	case *restartNow:
		if m.run == s.run && s.status == StatusRestarting {
			s.launch(ctx)
		}
	case *actor.Stopping:
		s.halt()
	case *actor.Stopped, *actor.Terminated:
	default:
		actorlog.Unhandled(actorlog.For(ctx, "config", s.name), ctx)
	}
}

// current reports whether a process message comes from this run's actor.
func (s *server) current(ctx actor.Context) bool {
	return s.proc != nil && ctx.Sender() != nil && ctx.Sender().Equal(s.proc)
}

func (s *server) info() Info {
	return Info{Name: s.name, Host: s.cfg.Host, Port: s.port, PID: s.pid, Status: s.status, Restarts: s.restarts}
}

func (s *server) set(ctx actor.Context, status string, ev Event) {
	s.status = status
	ev.Info = s.info()
	ctx.Send(ctx.Parent(), &changed{ev: ev})
}

func (s *server) start(ctx actor.Context, m *Start) {
	switch s.status {
	case StatusStarted:
		ctx.Respond(&Started{Info: s.info()})
		return
	case StatusStopping:
		ctx.Respond(&Started{Info: s.info(), Err: fmt.Errorf("server %s is stopping", s.name)})
		return
	}
	if ctx.Sender() != nil {
		s.startWaiters = append(s.startWaiters, ctx.Sender())
	}
	if s.status != StatusStopped && s.status != StatusFailed {
		return // starting, loading or restarting: the answer comes with it
	}
	s.cfg, s.fixedPort = m.Config, m.Port
	if s.fixedPort == 0 {
		s.fixedPort = m.Config.Port
	}
	s.attempt, s.restarts = 0, 0
	s.launch(ctx)
}

// launch starts a run of the program. A config without a port gets a new
// free port at each run: the last one may have been taken meanwhile.
func (s *server) launch(ctx actor.Context) {
	s.run++
	s.pid, s.termed, s.healthy, s.proc = 0, false, time.Time{}, nil
	s.port = s.fixedPort
	if s.port == 0 {
		p, err := freePort(s.cfg.Host)
		if err != nil {
			s.fail(ctx, err)
			return
		}
		s.port = p
	}
	path := cmp.Or(s.cfg.ServerPath, "llama-server")
	s.set(ctx, StatusStarting, Event{})
	spec := process.Spec{Path: path, Args: s.cfg.Args(s.name, s.port), StopGrace: s.opts.StopGrace}
	if s.opts.Outlive {
		spec.Outlive = true
		if s.opts.LogDir != "" {
			spec.LogFile = filepath.Join(s.opts.LogDir, s.name+".log")
		}
	}
	s.proc = ctx.SpawnPrefix(process.Props(spec, nil), "process")
}

// adopt owns a program a troupe that died left running: it is watched, not
// waited for, and once its /health answers it is started like any other.
// A server already running here keeps its own program.
func (s *server) adopt(ctx actor.Context, m *Adopt) {
	if s.status != StatusStopped && s.status != StatusFailed {
		return
	}
	s.cfg, s.fixedPort = m.Config, m.Config.Port
	s.attempt, s.restarts = 0, 0
	s.run++
	s.pid, s.termed, s.healthy = 0, false, time.Time{}
	s.port = m.Record.Port
	s.set(ctx, StatusStarting, Event{})
	rec := m.Record
	s.proc = ctx.SpawnPrefix(process.AdoptProps(process.Adopted{PID: rec.PID, PGID: rec.PGID, Alive: rec.Running,
		StopGrace: s.opts.StopGrace}, nil), "process")
}

func (s *server) fail(ctx actor.Context, err error) {
	s.set(ctx, StatusFailed, Event{Exit: err.Error()})
	s.answerStarts(ctx, fmt.Errorf("start llama-server for %s: %w", s.name, err))
}

func (s *server) answerStarts(ctx actor.Context, err error) {
	for _, w := range s.startWaiters {
		ctx.Send(w, &Started{Info: s.info(), Err: err})
	}
	s.startWaiters = nil
}

// exited handles the end of a run: the end of a stop, a program that
// could not start, or a crash to restart after a backoff.
func (s *server) exited(ctx actor.Context, m *process.Exited) {
	s.poller.stop()
	ctx.Stop(s.proc)
	s.proc = nil
	if m.PID != 0 {
		ctx.Send(ctx.Parent(), &forget{name: s.name, pid: m.PID})
	}
	how := describe(m)
	switch {
	case s.termed:
		status := StatusStopped
		// SIGKILL means the grace ran out; SIGABRT after our SIGTERM is how
		// the 2025 builds end cleanly.
		if m.Signal == syscall.SIGKILL {
			status = StatusStopTimeout
		}
		s.pid = 0
		s.set(ctx, status, Event{Exit: how})
		s.status = StatusStopped
		for _, w := range s.stopWaiters {
			ctx.Send(w, &Stopped{Name: s.name, Status: status})
		}
		s.stopWaiters = nil
	case m.Err != nil:
		s.pid = 0
		s.fail(ctx, m.Err)
	case s.healthy.IsZero() && s.restarts == 0:
		// The first run never loaded (a bad model, a port taken, wrong
		// flags): running it again would fail the same way, so whoever
		// waits is told why. A restart that dies loading backs off instead.
		s.pid = 0
		s.fail(ctx, fmt.Errorf("exited while loading: %s", how))
	default:
		policy := s.opts.backoff()
		// Only a run that became healthy and stayed so resets the backoff:
		// a restart that died loading has no healthy time at all, and
		// time.Since of the zero time would read as stable for ever.
		if !s.healthy.IsZero() && policy.Stable(time.Since(s.healthy)) {
			s.attempt = 0
		}
		delay := policy.Delay(s.attempt)
		s.attempt++
		s.restarts++
		metrics.LlamaServerRestarts.Inc()
		s.pid = 0
		s.set(ctx, StatusRestarting, Event{Delay: delay, Exit: how})
		root, self, run := ctx.ActorSystem().Root, ctx.Self(), s.run
		s.restart = time.AfterFunc(delay, func() { root.Send(self, &restartNow{run: run}) })
	}
}

func (s *server) stop(ctx actor.Context, m *Stop) {
	switch s.status {
	case StatusStopped, StatusFailed:
		ctx.Respond(&Stopped{Name: s.name, Status: StatusAlreadyStopped})
		return
	case StatusRestarting:
		s.restart.Stop()
		s.run++ // the timer's message, if already sent, is stale now
		s.set(ctx, StatusStopped, Event{})
		s.answerStarts(ctx, fmt.Errorf("server %s was stopped", s.name))
		ctx.Respond(&Stopped{Name: s.name, Status: StatusStopped})
		return
	}
	if ctx.Sender() != nil {
		s.stopWaiters = append(s.stopWaiters, ctx.Sender())
	}
	if s.termed {
		return
	}
	s.termed = true
	grace := m.Grace
	if grace <= 0 {
		grace = s.opts.StopGrace
	}
	s.poller.stop()
	s.set(ctx, StatusStopping, Event{})
	s.answerStarts(ctx, fmt.Errorf("server %s was stopped", s.name))
	ctx.Send(s.proc, &process.Terminate{Grace: grace})
}

// halt is the actor's own end (troupe shutting down): the process actor,
// a child, ends its program with the stop grace.
func (s *server) halt() {
	s.poller.stop()
	if s.restart != nil {
		s.restart.Stop()
	}
}

func describe(m *process.Exited) string {
	switch {
	case m.Err != nil:
		return m.Err.Error()
	case m.Signal != 0:
		return fmt.Sprintf("signal %d (%s)", int(m.Signal), m.Signal)
	}
	return "exit status " + strconv.Itoa(m.Code)
}

// freePort asks the kernel for a port free on host right now.
func freePort(host string) (int, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
