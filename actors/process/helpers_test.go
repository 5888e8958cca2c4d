package process_test

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/process"
)

// newSystem returns an actor system whose logs show only with -v.
func newSystem(t *testing.T) *actor.ActorSystem {
	t.Helper()
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		if testing.Verbose() {
			return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		}
		return slog.New(slog.DiscardHandler)
	}))
	t.Cleanup(sys.Shutdown)
	return sys
}

// received is one message the owner got, with its sender.
type received struct {
	from *actor.PID
	msg  any
}

// owner is a test actor that forwards the process messages it receives.
type owner struct {
	t   *testing.T
	pid *actor.PID
	got chan received
}

func newOwner(t *testing.T, sys *actor.ActorSystem) *owner {
	t.Helper()
	o := &owner{t: t, got: make(chan received, 100_000)}
	o.pid = sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *process.Started, *process.Line, *process.Exited:
			o.got <- received{from: ctx.Sender(), msg: m}
		}
	}))
	t.Cleanup(func() { _ = sys.Root.StopFuture(o.pid).Wait() })
	return o
}

// run spawns spec reporting to o; the actor is stopped when the test ends.
func (o *owner) run(sys *actor.ActorSystem, spec process.Spec) *actor.PID {
	pid := sys.Root.Spawn(process.Props(spec, o.pid))
	o.t.Cleanup(func() { _ = sys.Root.StopFuture(pid).Wait() })
	return pid
}

// next returns the next message, failing after 10 s.
func (o *owner) next() received {
	o.t.Helper()
	select {
	case r := <-o.got:
		return r
	case <-time.After(10 * time.Second):
		o.t.Fatal("no message from the process within 10s")
		return received{}
	}
}

func (o *owner) started() *process.Started {
	o.t.Helper()
	r := o.next()
	s, ok := r.msg.(*process.Started)
	if !ok {
		o.t.Fatalf("first message %T %+v, want Started", r.msg, r.msg)
	}
	return s
}

// until collects Lines up to Exited.
func (o *owner) until() ([]*process.Line, *process.Exited) {
	o.t.Helper()
	var lines []*process.Line
	for {
		switch m := o.next().msg.(type) {
		case *process.Line:
			lines = append(lines, m)
		case *process.Exited:
			return lines, m
		default:
			o.t.Fatalf("unexpected %T %+v", m, m)
		}
	}
}

// pids reads the pids from "pid N" lines until it has n of them.
func (o *owner) pids(n int) []int {
	o.t.Helper()
	var pids []int
	for len(pids) < n {
		r := o.next()
		l, ok := r.msg.(*process.Line)
		if !ok {
			o.t.Fatalf("got %T %+v while waiting for pids", r.msg, r.msg)
		}
		if p, ok := strings.CutPrefix(l.Text, "pid "); ok {
			pid, err := strconv.Atoi(p)
			if err != nil {
				o.t.Fatalf("bad pid line %q", l.Text)
			}
			pids = append(pids, pid)
		}
	}
	return pids
}

func texts(lines []*process.Line, s process.Stream) []string {
	var out []string
	for _, l := range lines {
		if l.Stream == s {
			out = append(out, l.Text)
		}
	}
	return out
}

func sh(script string, args ...string) process.Spec {
	return process.Spec{Path: "sh", Args: append([]string{"-c", script}, args...)}
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != len(want) {
		t.Errorf("%s: %q, want %q", what, got, want)
	}
}
