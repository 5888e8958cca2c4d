package sessions

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/actors/storewriter"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/runtime/backoff"
)

// Config is what the registry needs to start sessions and supervise them.
type Config struct {
	Session session.Config // ID is filled in per session
	// Middleware wraps every session's Receive.
	Middleware []actor.ReceiverMiddleware
	// MaxFailures within FailureWindow stop a session for good; defaults 5
	// and 1 minute.
	MaxFailures   int
	FailureWindow time.Duration
	// Backoff is the first restart delay, doubled per failure up to
	// MaxBackoff; defaults 50 ms and 5 s.
	Backoff    time.Duration
	MaxBackoff time.Duration
}

func (c *Config) defaults() {
	if c.MaxFailures <= 0 {
		c.MaxFailures = 5
	}
	if c.FailureWindow <= 0 {
		c.FailureWindow = time.Minute
	}
	if c.Backoff <= 0 {
		c.Backoff = 50 * time.Millisecond
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 5 * time.Second
	}
}

// Props builds the registry.
func Props(cfg Config) *actor.Props {
	cfg.defaults()
	return actor.PropsFromProducer(func() actor.Actor {
		return &registry{cfg: cfg, live: map[string]*entry{}, byPID: map[string]string{}}
	})
}

type routed struct {
	sender *actor.PID
	msg    session.Request
}

type entry struct {
	pid       *actor.PID
	forwarded uint64
	stopping  bool
	failed    error
	waiting   []routed     // requests that arrived while it was stopping
	killers   []*actor.PID // Kill's senders, answered once it stopped
}

type registry struct {
	cfg   Config
	live  map[string]*entry
	byPID map[string]string
}

func (r *registry) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *Route:
		r.route(ctx, ctx.Sender(), m.ID, m.Msg)
	case *session.PassivateRequest:
		r.passivate(ctx, m)
	case *Kill:
		r.kill(ctx, m.ID)
	case *actor.Terminated:
		r.terminated(ctx, m.Who)
	case *Live:
		ids := make([]string, 0, len(r.live))
		for id, e := range r.live {
			if !e.stopping {
				ids = append(ids, id)
			}
		}
		ctx.Respond(&LiveSessions{IDs: ids})
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}

func (r *registry) route(ctx actor.Context, sender *actor.PID, id string, msg session.Request) {
	if id == "" || msg == nil {
		r.answer(ctx, sender, &RouteFailed{Err: fmt.Errorf("route: session id and message are required")})
		return
	}
	e, ok := r.live[id]
	if _, unsub := msg.(*session.Unsubscribe); unsub && !ok {
		// The subscription ended with the session: ending it must not
		// start the session again.
		return
	}
	if !ok {
		var err error
		if e, err = r.spawn(ctx, id); err != nil {
			r.answer(ctx, sender, &RouteFailed{Err: err})
			return
		}
	}
	if e.stopping {
		e.waiting = append(e.waiting, routed{sender: sender, msg: msg})
		return
	}
	e.forwarded++
	ctx.RequestWithCustomSender(e.pid, msg, sender)
}

func (r *registry) spawn(ctx actor.Context, id string) (*entry, error) {
	cfg := r.cfg.Session
	cfg.ID = id
	pid, err := ctx.SpawnNamed(session.Props(cfg, r.cfg.Middleware...), id)
	if err != nil {
		return nil, fmt.Errorf("start session %s: %w", id, err)
	}
	e := &entry{pid: pid}
	r.live[id] = e
	r.byPID[pid.Id] = id
	return e, nil
}

// passivate lets the session stop only if it has handled every request
// routed to it; otherwise one is in its mailbox and it stays.
func (r *registry) passivate(ctx actor.Context, m *session.PassivateRequest) {
	e, ok := r.live[m.SessionID]
	if !ok || e.stopping || e.forwarded != m.Handled {
		return
	}
	e.stopping = true
	ctx.Send(e.pid, &session.Passivate{})
}

// kill stops a live session after the requests already routed to it
// (Passivate is an ordinary message, behind them in its mailbox).
func (r *registry) kill(ctx actor.Context, id string) {
	e, ok := r.live[id]
	if !ok {
		r.answer(ctx, ctx.Sender(), &Killed{})
		return
	}
	if k := ctx.Sender(); k != nil {
		// A Kill told, not asked (a cluster grain handing its session
		// over), wants no answer.
		e.killers = append(e.killers, k)
	}
	if !e.stopping {
		e.stopping = true
		ctx.Send(e.pid, &session.Passivate{})
	}
}

func (r *registry) terminated(ctx actor.Context, who *actor.PID) {
	id, ok := r.byPID[who.Id]
	if !ok {
		return
	}
	delete(r.byPID, who.Id)
	e := r.live[id]
	delete(r.live, id)
	r.answerKillers(ctx, e.killers)
	for _, w := range e.waiting {
		if e.failed != nil {
			r.answer(ctx, w.sender, &RouteFailed{Err: e.failed})
			continue
		}
		r.route(ctx, w.sender, id, w.msg)
	}
}

// answerKillers tells Kill's senders the session stopped once the writer
// has committed what it sent on its way out (its cold status): a caller
// reading the store next sees the session cold. The wait runs off the
// mailbox.
func (r *registry) answerKillers(ctx actor.Context, killers []*actor.PID) {
	if len(killers) == 0 {
		return
	}
	if r.cfg.Session.Writer == nil {
		for _, k := range killers {
			ctx.Send(k, &Killed{})
		}
		return
	}
	drained := ctx.RequestFuture(r.cfg.Session.Writer, &storewriter.Drain{}, requestTimeout)
	ctx.ReenterAfter(drained, func(any, error) {
		for _, k := range killers {
			ctx.Send(k, &Killed{})
		}
	})
}

// HandleFailure makes the registry the supervisor of its sessions:
// exponential backoff restarts, and a stop marked in the store after
// MaxFailures within FailureWindow.
func (r *registry) HandleFailure(sys *actor.ActorSystem, sup actor.Supervisor, child *actor.PID, rs *actor.RestartStatistics, reason, _ any) {
	if rs.NumberOfFailures(r.cfg.FailureWindow) == 0 {
		rs.Reset()
	}
	rs.Fail()
	id := r.byPID[child.Id]
	n := rs.NumberOfFailures(r.cfg.FailureWindow)
	sys.Logger().Error("session failed", "session", id, "failures", n, "reason", fmt.Sprint(reason))
	if n >= r.cfg.MaxFailures {
		r.giveUp(sys, sup, child, id, reason, n)
		return
	}
	// The jitter spreads restarts of sessions that failed together.
	policy := backoff.Policy{Base: r.cfg.Backoff, Max: r.cfg.MaxBackoff, Jitter: r.cfg.Backoff / 4}
	delay := policy.Delay(n - 1)
	time.AfterFunc(delay, func() { sup.RestartChildren(child) })
}

func (r *registry) giveUp(sys *actor.ActorSystem, sup actor.Supervisor, child *actor.PID, id string, reason any, n int) {
	why := fmt.Sprintf("stopped after %d failures within %s: %v", n, r.cfg.FailureWindow, reason)
	if e, ok := r.live[id]; ok {
		e.stopping = true
		e.failed = fmt.Errorf("%w: %s: %s", session.ErrFailed, id, why)
		if cause, ok := reason.(error); ok {
			// The cause stays testable (a full disk is told apart).
			e.failed = fmt.Errorf("%w: %s: stopped after %d failures within %s: %w", session.ErrFailed, id, n, r.cfg.FailureWindow, cause)
		}
	}
	if cause, ok := reason.(error); ok && errors.Is(cause, persistence.ErrStoreWrite) {
		// The store failed, not the session (a full disk): it stops, and
		// the next request once there is room starts it again. Marked
		// failed, it would refuse everything for good.
		sup.StopChildren(child)
		return
	}
	sys.Root.Send(r.cfg.Session.Writer, &storewriter.SetStatus{Change: persistence.StatusChange{
		SessionID: id, Status: persistence.StatusFailed, Reason: why,
	}})
	sup.StopChildren(child)
}

func (r *registry) answer(ctx actor.Context, to *actor.PID, msg any) {
	if to != nil {
		ctx.Send(to, msg)
	}
}
