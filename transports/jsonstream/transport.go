package jsonstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/transports"
	"github.com/troupehq/troupe/transports/stdio"
)

// Config is one process's conversation.
type Config struct {
	SessionID string
	Sessions  *sessions.Client // requests go through the session facade
	// From is the first seq to project: what came before was shown by an
	// earlier process (the resumed run continues from here).
	From int64
	Mode string // the session's approval mode at start
	// Input is stdin; closed when the transport stops if it is a Closer.
	Input   io.Reader
	MaxLine int
	Out     io.Writer // stdout, written by the transport's writer child
}

// flushTimeout bounds the wait for stdout to be written at the end.
const flushTimeout = 30 * time.Second

// Props builds the transport actor, to start under the transports
// supervisor (runtime.StartTransport). It reports transports.Done once
// the conversation is over (EOF, or transports.Terminate at SIGTERM, which
// ends it as EOF does: the running response is aborted and its stream_end
// written) and every line is written. Its stdout writer is its child.
func Props(cfg Config) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &transport{cfg: cfg, proj: NewProjector(cfg.Mode), pending: map[string]bool{}}
	}, actor.WithSupervisor(transports.Escalate))
}

type transport struct {
	cfg    Config
	proj   *Projector
	writer *actor.PID
	lines  *stdio.Queue // to the writer without a message per line
	sub    *actor.PID
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
	case *sessions.Events:
		t.onEvents(ctx, m)
	case *sessions.Closed:
		t.log(ctx).Warn("session subscription closed", "reason", m.Reason)
		if !t.closing {
			t.write(ctx, NewError("", CodeInternal, "the session stopped: "+m.Reason, false))
			t.code = 1
		}
		t.finish(ctx)
	case *stdio.Input:
		t.onLine(ctx, m.Line)
	case *stdio.InputTooLong:
		t.write(ctx, NewError("", CodeProtocol, m.Err.Error(), false))
	case *stdio.InputEnd:
		// A read error ends the conversation as EOF does: nothing more
		// can come from this client.
		t.close(ctx)
	case *transports.Terminate:
		t.close(ctx)
	case *actor.Stopping:
		if c, ok := t.cfg.Input.(io.Closer); ok {
			// Ends the reader goroutine at its next read; a read already
			// blocked on a pipe ends with the process.
			_ = c.Close()
		}
		if t.sub != nil {
			t.cfg.Sessions.Unsubscribe(t.cfg.SessionID, t.sub)
		}
	default:
		actorlog.Unhandled(t.log(ctx), ctx)
	}
}

func (t *transport) log(ctx actor.Context) *slog.Logger {
	return actorlog.For(ctx, "session", t.cfg.SessionID)
}

// start spawns the stdout writer, writes ready, subscribes and starts
// reading. ready goes first so that a resumed run's stream_start, replayed
// from the store, follows it.
func (t *transport) start(ctx actor.Context) {
	t.lines = &stdio.Queue{}
	t.writer = ctx.SpawnPrefix(stdio.QueueWriterProps(t.cfg.Out, t.lines), "writer")
	transports.Writes(ctx, t.writer)
	t.write(ctx, NewReady(t.cfg.SessionID, t.cfg.Mode))
	t.async(ctx).Subscribe(t.cfg.SessionID, t.cfg.From, false, func(s sessions.Subscribed, err error) {
		if !t.reached(ctx, "", "subscribe", err) {
			return
		}
		if err != nil {
			t.fatal(ctx, fmt.Errorf("subscribe to session %s: %w", t.cfg.SessionID, err))
			return
		}
		t.sub = s.Subscription
	})
	go stdio.ReadInput(ctx.ActorSystem().Root, ctx.Self(), t.cfg.Input, t.cfg.MaxLine)
}

func (t *transport) onEvents(ctx actor.Context, m *sessions.Events) {
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
					t.cancelRun(ctx, "the client closed the stream")
				}
			}
			t.write(ctx, out)
		}
	}
	if t.closing {
		t.maybeFinish(ctx)
	}
}

// write queues v's line: a burst of deltas wakes the writer once and goes
// out in a few large writes instead of one write(2) a line.
func (t *transport) write(ctx actor.Context, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		actorlog.For(ctx).Error("protocol message not marshalled", "type", fmt.Sprintf("%T", v), "error", err)
		return
	}
	t.lines.Line(b)
}

// async makes session requests without blocking the mailbox; each answer
// is handled on it.
func (t *transport) async(ctx actor.Context) sessions.Async {
	return t.cfg.Sessions.Async(ctx)
}

// reached reports whether a session request's answer came from the
// session. One that did not reach it is reported to the client about
// msgID, as its kind says (a retryable internal_error when nothing more
// specific is known).
func (t *transport) reached(ctx actor.Context, msgID, what string, err error) bool {
	var unreachable *sessions.UnreachableError
	if !errors.As(err, &unreachable) {
		return true
	}
	t.log(ctx).Error("session request failed", "request", what, "error", unreachable.Err)
	t.write(ctx, SessionError(msgID, "", err))
	return false
}

// SessionError is a facade error as a json-stream error event about
// msgID: the code and retryable of its kind in the facade's one table
// (sessions.KindOf), the text prefixed by what was asked when not "".
func SessionError(msgID, what string, err error) Error {
	w := sessions.KindOf(err).Wire()
	msg := err.Error()
	if what != "" {
		msg = what + ": " + msg
	}
	return NewError(msgID, w.JSONStream, msg, w.Retryable)
}

// cancelRun stops the running response; its stream_end follows from
// run.ended.
func (t *transport) cancelRun(ctx actor.Context, reason string) {
	t.async(ctx).Cancel(t.cfg.SessionID, reason, func(_ sessions.CancelResult, err error) {
		t.reached(ctx, "", "cancel", err)
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
		t.cancelRun(ctx, "the client closed the stream")
	}
	t.maybeFinish(ctx)
}

func (t *transport) maybeFinish(ctx actor.Context) {
	if !t.proj.Open() && len(t.pending) == 0 {
		t.finish(ctx)
	}
}

func (t *transport) fatal(ctx actor.Context, err error) {
	t.log(ctx).Error("json stream failed", "error", err)
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
	f := ctx.RequestFuture(t.writer, &stdio.Flush{}, flushTimeout)
	ctx.ReenterAfter(f, func(res any, err error) {
		if fl, ok := res.(*stdio.Flushed); ok && fl.Err != nil {
			err = fl.Err
		}
		if err != nil {
			t.log(ctx).Warn("stdout not fully written", "error", err)
		}
		transports.Finish(ctx, transports.Done{Code: t.code})
	})
}
