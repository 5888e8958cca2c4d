package actorlog_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/testkit"
)

type known struct{}
type stray struct{}

// An actor's unknown message is reported with its type and the actor's
// identity; its lifecycle messages and the ones it handles are not.
func TestUnhandledReportsStrayMessagesOnly(t *testing.T) {
	var out testkit.Buffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return log }))
	defer sys.Shutdown()
	handled := make(chan struct{}, 1)
	pid, err := sys.Root.SpawnNamed(actor.PropsFromFunc(func(ctx actor.Context) {
		switch ctx.Message().(type) {
		case *known:
			handled <- struct{}{}
		default:
			actorlog.Unhandled(actorlog.For(ctx, "session", "s1"), ctx)
		}
	}), "probe")
	testkit.NoError(t, err)
	sys.Root.Send(pid, &known{})
	sys.Root.Send(pid, &stray{})
	sys.Root.Send(pid, &known{})
	testkit.ChanRead(t, handled, 5*time.Second)
	testkit.ChanRead(t, handled, 5*time.Second)
	testkit.NoError(t, sys.Root.StopFuture(pid).Wait())

	var lines []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "unhandled") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("want one report, got:\n%s", out.String())
	}
	for _, want := range []string{`msg="unhandled message"`, `type=*actorlog_test.stray`, `actor=probe`, `session=s1`} {
		if !strings.Contains(lines[0], want) {
			t.Fatalf("report lacks %s: %s", want, lines[0])
		}
	}
}
