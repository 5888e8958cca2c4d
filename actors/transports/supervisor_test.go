package transports_test

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/transports"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/transports/stdio"
)

// fake is a transport whose behaviour each test sets.
type fake struct {
	started *atomic.Int32
	onStart func(ctx actor.Context)
	onTerm  func(ctx actor.Context)
	stopped chan struct{}
}

type crash struct{}

func (f *fake) Receive(ctx actor.Context) {
	switch ctx.Message().(type) {
	case *actor.Started:
		if f.started != nil {
			f.started.Add(1)
		}
		if f.onStart != nil {
			f.onStart(ctx)
		}
	case *transports.Terminate:
		if f.onTerm != nil {
			f.onTerm(ctx)
		}
	case *crash:
		panic("boom")
	case *actor.Stopped:
		if f.stopped != nil {
			close(f.stopped)
		}
	}
}

func props(f *fake) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor { return f }, actor.WithSupervisor(transports.Escalate))
}

func boot(t *testing.T) (*actor.ActorSystem, *actor.PID) {
	t.Helper()
	sys := actor.NewActorSystem()
	t.Cleanup(sys.Shutdown)
	return sys, sys.Root.Spawn(transports.Props())
}

func start(t *testing.T, sys *actor.ActorSystem, sup *actor.PID, f *fake, name string) (*actor.PID, chan transports.Done) {
	t.Helper()
	done := make(chan transports.Done, 1)
	res, err := sys.Root.RequestFuture(sup, &transports.Start{Props: props(f), Name: name, Done: done}, 5*time.Second).Result()
	testkit.NoError(t, err)
	st := res.(*transports.Started)
	testkit.NoError(t, st.Err)
	return st.PID, done
}

func waitDone(t *testing.T, done chan transports.Done) transports.Done {
	t.Helper()
	select {
	case d := <-done:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("no Done")
		return transports.Done{}
	}
}

func waitClosed(t *testing.T, c chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not happen", what)
	}
}

// A transport's own Done reaches whoever started it, and the supervisor
// stops the transport: its conversation is over.
func TestDoneIsPassedOnAndTheTransportStopped(t *testing.T) {
	sys, sup := boot(t)
	f := &fake{stopped: make(chan struct{}), onStart: func(ctx actor.Context) {
		transports.Finish(ctx, transports.Done{Code: 7})
	}}
	_, done := start(t, sys, sup, f, "t")
	d := waitDone(t, done)
	testkit.Equal(t, d.Code, 7)
	testkit.NoError(t, d.Err)
	waitClosed(t, f.stopped, "stop after Done")
}

// slowOut is a stdout that takes its time, so that lines wait in the
// writer's mailbox when the transport crashes.
type slowOut struct {
	mu    sync.Mutex
	lines []string
}

func (s *slowOut) Write(p []byte) (int, error) {
	time.Sleep(2 * time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, string(p))
	return len(p), nil
}

func (s *slowOut) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "")
}

// A crashed transport is stopped, not restarted; its Done carries the
// panic, and only comes once its writer has written the lines it was
// handed before the crash.
func TestCrashIsReportedAfterItsOutput(t *testing.T) {
	sys, sup := boot(t)
	out := &slowOut{}
	var started atomic.Int32
	f := &fake{started: &started, stopped: make(chan struct{}), onStart: func(ctx actor.Context) {
		w := ctx.Spawn(stdio.WriterProps(out))
		transports.Writes(ctx, w)
		for range 50 {
			ctx.Send(w, &stdio.Line{Data: []byte("x")})
		}
		ctx.Send(ctx.Self(), &crash{})
	}}
	_, done := start(t, sys, sup, f, "rpc")
	d := waitDone(t, done)
	testkit.Equal(t, d.Code, 1)
	if d.Err == nil || d.Err.Error() != "transport rpc failed: boom" {
		t.Fatalf("Done error %v", d.Err)
	}
	testkit.Equal(t, out.String(), strings.Repeat("x\n", 50))
	waitClosed(t, f.stopped, "stop after the crash")
	testkit.Equal(t, started.Load(), int32(1))
}

// A transport cannot go on without its writer: the writer's crash is the
// transport's (transports.Escalate), reported as its Done.
func TestWriterCrashStopsItsTransport(t *testing.T) {
	sys, sup := boot(t)
	f := &fake{stopped: make(chan struct{}), onStart: func(ctx actor.Context) {
		w := ctx.Spawn(actor.PropsFromFunc(func(c actor.Context) {
			if _, ok := c.Message().(*crash); ok {
				panic("stdout gone")
			}
		}))
		ctx.Send(w, &crash{})
	}}
	_, done := start(t, sys, sup, f, "json-stream")
	d := waitDone(t, done)
	testkit.Equal(t, d.Code, 1)
	if d.Err == nil || !strings.Contains(d.Err.Error(), "transport json-stream failed: stdout gone") {
		t.Fatalf("Done error %v", d.Err)
	}
	waitClosed(t, f.stopped, "stop after the writer's crash")
}

// Drain (shutdown's transports stage) terminates every transport, waits
// for those that finish, and stops the one that does not within the grace.
func TestDrainTerminatesThenStopsTheLate(t *testing.T) {
	sys, sup := boot(t)
	polite := &fake{onTerm: func(ctx actor.Context) { transports.Finish(ctx, transports.Done{Code: 143}) }}
	stubborn := &fake{stopped: make(chan struct{})}
	_, politeDone := start(t, sys, sup, polite, "polite")
	_, stubbornDone := start(t, sys, sup, stubborn, "stubborn")
	res, err := sys.Root.RequestFuture(sup, &transports.Drain{Grace: 300 * time.Millisecond}, 10*time.Second).Result()
	testkit.NoError(t, err)
	testkit.DeepEqual(t, res.(*transports.Drained).Late, []string{"stubborn"})
	testkit.Equal(t, waitDone(t, politeDone), transports.Done{Code: 143})
	d := waitDone(t, stubbornDone)
	if d.Code != 1 || !errors.Is(d.Err, transports.ErrStopped) {
		t.Fatalf("stubborn Done %+v", d)
	}
	waitClosed(t, stubborn.stopped, "stubborn stopped")

	// Once draining, nothing new starts.
	res, err = sys.Root.RequestFuture(sup, &transports.Start{Props: props(&fake{}), Name: "late", Done: make(chan transports.Done, 1)}, 5*time.Second).Result()
	testkit.NoError(t, err)
	if res.(*transports.Started).Err == nil {
		t.Fatal("a transport started during shutdown")
	}
}

// Stopping the supervisor stops its transports, each reported stopped.
func TestStoppedSupervisorReportsItsTransports(t *testing.T) {
	sys, sup := boot(t)
	_, done := start(t, sys, sup, &fake{}, "t")
	testkit.NoError(t, sys.Root.PoisonFuture(sup).Wait())
	d := waitDone(t, done)
	if d.Code != 1 || !errors.Is(d.Err, transports.ErrStopped) {
		t.Fatalf("Done %+v", d)
	}
}
