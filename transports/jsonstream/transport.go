package jsonstream

import (
	"fmt"
	"io"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/session"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/stdio"
)

// Config is one process's conversation.
type Config struct {
	SessionID string
	// Registry is the sessions supervisor; requests go to it as Route.
	Registry *actor.PID
	// From is the first seq to project: what came before was shown by an
	// earlier process (the resumed run continues from here).
	From int64
	Mode string // the session's approval mode at start
	// Input is stdin; closed when the transport stops if it is a Closer.
	Input   io.Reader
	MaxLine int
	Writer  *actor.PID // the stdout writer actor
	// Done receives the exit code once the conversation is over and every
	// line is written.
	Done chan<- int
}

// Terminate ends the conversation as EOF does (SIGTERM): the running
// response is aborted and its stream_end written before Done.
type Terminate struct{}

// requestTimeout bounds one session request.
const requestTimeout = 30 * time.Second

// Props builds the transport actor.
func Props(cfg Config) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &transport{cfg: cfg, proj: NewProjector(cfg.Mode), pending: map[string]bool{}}
	})
}

type transport struct {
	cfg  Config
	proj *Projector
	sub  *actor.PID
	// pending are messages sent whose run has not started yet.
	pending  map[string]bool
	prompted bool // a message was sent: init_history comes too late
	closing  bool
	finished bool
	code     int
}

func (t *transport) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		t.start(ctx)
	case *session.Events:
		t.onEvents(ctx, m)
	case *session.Closed:
		ctx.Logger().Warn("session subscription closed", "session", t.cfg.SessionID, "reason", m.Reason)
		if !t.closing {
			t.write(ctx, NewError("", CodeInternal, "the session stopped: "+m.Reason, false))
			t.code = 1
		}
		t.finish(ctx)
	case *inputLine:
		t.onLine(ctx, m.data)
	case *inputBad:
		t.write(ctx, NewError("", CodeProtocol, m.err.Error(), false))
	case *inputEOF, *Terminate:
		t.close(ctx)
	case *actor.Stopping:
		if c, ok := t.cfg.Input.(io.Closer); ok {
			// Ends the reader goroutine at its next read; a read already
			// blocked on a pipe ends with the process.
			_ = c.Close()
		}
		if t.sub != nil {
			ctx.Send(t.cfg.Registry, &sessions.Route{ID: t.cfg.SessionID, Msg: &session.Unsubscribe{Subscription: t.sub}})
		}
	}
}

// start writes ready, subscribes and starts reading. ready goes first so
// that a resumed run's stream_start, replayed from the store, follows it.
func (t *transport) start(ctx actor.Context) {
	t.write(ctx, NewReady(t.cfg.SessionID, t.cfg.Mode))
	t.request(ctx, "", &session.Subscribe{From: t.cfg.From, Target: ctx.Self()}, func(res any) {
		s := res.(*session.Subscribed)
		if s.Err != nil {
			t.fatal(ctx, fmt.Errorf("subscribe to session %s: %w", t.cfg.SessionID, s.Err))
			return
		}
		t.sub = s.Subscription
	})
	root, self := ctx.ActorSystem().Root, ctx.Self()
	go readInput(root, self, t.cfg.Input, t.cfg.MaxLine)
}

func (t *transport) onEvents(ctx actor.Context, m *session.Events) {
	for _, e := range m.Events {
		if e.Seq < t.cfg.From {
			continue
		}
		for _, out := range t.proj.Project(e) {
			if s, ok := out.(StreamStart); ok {
				delete(t.pending, s.MsgID)
				if t.closing {
					// A message queued before EOF started after it: it is
					// stopped like the one that was running.
					t.request(ctx, "", &session.CancelRun{Reason: "the client closed the stream"}, nil)
				}
			}
			t.write(ctx, out)
		}
	}
	if t.closing {
		t.maybeFinish(ctx)
	}
}

func (t *transport) write(ctx actor.Context, v any) {
	ctx.Send(t.cfg.Writer, &stdio.JSON{V: v})
}

// request sends a session request without blocking the mailbox; onReply
// runs on the mailbox with the session's reply. A failure to deliver is
// reported to the client as an internal_error about msgID.
func (t *transport) request(ctx actor.Context, msgID string, req session.Request, onReply func(res any)) {
	f := ctx.RequestFuture(t.cfg.Registry, &sessions.Route{ID: t.cfg.SessionID, Msg: req}, requestTimeout)
	ctx.ReenterAfter(f, func(res any, err error) {
		if rf, ok := res.(*sessions.RouteFailed); ok {
			err = rf.Err
		}
		if err != nil {
			ctx.Logger().Error("session request failed", "session", t.cfg.SessionID, "request", fmt.Sprintf("%T", req), "error", err)
			t.write(ctx, NewError(msgID, CodeInternal, fmt.Sprintf("session %s: %v", t.cfg.SessionID, err), true))
			return
		}
		if onReply != nil {
			onReply(res)
		}
	})
}

// close ends the conversation: the running response (if any) is aborted,
// its end written, then Done.
func (t *transport) close(ctx actor.Context) {
	if t.closing {
		return
	}
	t.closing = true
	if t.proj.Open() || len(t.pending) > 0 {
		t.request(ctx, "", &session.CancelRun{Reason: "the client closed the stream"}, nil)
	}
	t.maybeFinish(ctx)
}

func (t *transport) maybeFinish(ctx actor.Context) {
	if !t.proj.Open() && len(t.pending) == 0 {
		t.finish(ctx)
	}
}

func (t *transport) fatal(ctx actor.Context, err error) {
	ctx.Logger().Error("json stream failed", "session", t.cfg.SessionID, "error", err)
	t.write(ctx, NewError("", CodeInternal, err.Error(), false))
	t.code = 1
	t.finish(ctx)
}

// finish waits for the writer to have written everything, then reports.
func (t *transport) finish(ctx actor.Context) {
	if t.finished {
		return
	}
	t.finished = true
	f := ctx.RequestFuture(t.cfg.Writer, &stdio.Flush{}, requestTimeout)
	ctx.ReenterAfter(f, func(res any, err error) {
		if fl, ok := res.(*stdio.Flushed); ok && fl.Err != nil {
			err = fl.Err
		}
		if err != nil {
			ctx.Logger().Warn("stdout not fully written", "error", err)
		}
		t.cfg.Done <- t.code
	})
}
