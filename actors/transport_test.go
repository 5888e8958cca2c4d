package actors_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/transports"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

// recorder keeps what happened, in order.
type recorder struct {
	mu    sync.Mutex
	order []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.order = append(r.order, s)
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.order...)
}

// The transports stage terminates every transport while sessions still
// answer, and stops it before the sessions stage begins.
func TestShutdownStopsTransportsBeforeSessions(t *testing.T) {
	rt, err := actors.Start(actors.Options{Home: t.TempDir(), Logger: testkit.TestLogger(t)})
	testkit.NoError(t, err)
	testkit.NoError(t, rt.Sessions.Create(context.Background(), "s", event.CreatedPayload{Cwd: "/w"}))
	rec := &recorder{}
	tr, err := rt.StartTransport(actor.PropsFromFunc(func(ctx actor.Context) {
		switch ctx.Message().(type) {
		case *transports.Terminate:
			rec.add("terminate")
			// What a transport owes on SIGTERM may need its session.
			rt.Sessions.Async(ctx).State("s", func(st sessions.State, err error) {
				if err != nil {
					rec.add("session unreachable: " + err.Error())
				} else {
					rec.add("session answered")
				}
				transports.Finish(ctx, transports.Done{Code: 143})
			})
		case *actor.Stopping:
			rec.add("transport stopped")
		}
	}), "fake")
	testkit.NoError(t, err)
	rt.OnShutdown(actors.StageSessions, func(context.Context) error { rec.add("sessions"); return nil })

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	testkit.NoError(t, rt.Shutdown(ctx))
	testkit.DeepEqual(t, rec.list(), []string{"terminate", "session answered", "transport stopped", "sessions"})
	select {
	case d := <-tr.Done():
		testkit.Equal(t, d, transports.Done{Code: 143})
	default:
		t.Fatal("no Done by the end of Shutdown")
	}
}

// A transport's crash stops it alone: its Done names the panic, and the
// sessions and the store go on serving.
func TestTransportCrashIsContained(t *testing.T) {
	rt := testkit.Boot(t, actors.Options{})
	tr, err := rt.StartTransport(actor.PropsFromFunc(func(ctx actor.Context) {
		if _, ok := ctx.Message().(*actor.Started); ok {
			panic("bad frame")
		}
	}), "conn")
	testkit.NoError(t, err)
	select {
	case d := <-tr.Done():
		if d.Code != 1 || d.Err == nil || !strings.Contains(d.Err.Error(), "transport conn failed: bad frame") {
			t.Fatalf("Done %+v", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no Done after the crash")
	}
	ctx := context.Background()
	testkit.NoError(t, rt.Sessions.Create(ctx, "after", event.CreatedPayload{Cwd: "/w"}))
	if _, err := rt.Sessions.State(ctx, "after"); err != nil {
		t.Fatal(err)
	}
	// The supervisor still starts transports.
	again, err := rt.StartTransport(actor.PropsFromFunc(func(ctx actor.Context) {
		if _, ok := ctx.Message().(*actor.Started); ok {
			transports.Finish(ctx, transports.Done{})
		}
	}), "conn")
	testkit.NoError(t, err)
	testkit.Equal(t, <-again.Done(), transports.Done{})
}
