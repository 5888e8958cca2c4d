package spawner_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/spawner"
	"github.com/troupehq/troupe/testkit"
)

// A spawned child is the spawner's: its id sits under the spawner's, and
// stopping the spawner stops it.
func TestSpawnUnderParent(t *testing.T) {
	sys := actor.NewActorSystem()
	parent, err := sys.Root.SpawnNamed(spawner.Props("stream", nil), "streams")
	testkit.NoError(t, err)
	stopped := make(chan struct{})
	child, err := spawner.Spawn(sys.Root, parent, actor.PropsFromFunc(func(c actor.Context) {
		if _, ok := c.Message().(*actor.Stopped); ok {
			close(stopped)
		}
	}), "")
	testkit.NoError(t, err)
	if !strings.HasPrefix(child.Id, "streams/stream$") {
		t.Fatalf("child %q is not under the spawner", child.Id)
	}
	named, err := spawner.Spawn(sys.Root, parent, actor.PropsFromFunc(func(actor.Context) {}), "one")
	testkit.NoError(t, err)
	testkit.Equal(t, named.Id, "streams/one")
	_, err = spawner.Spawn(sys.Root, parent, actor.PropsFromFunc(func(actor.Context) {}), "one")
	if !errors.Is(err, actor.ErrNameExists) {
		t.Fatalf("a second child of the same name: got %v, want ErrNameExists", err)
	}
	testkit.NoError(t, sys.Root.StopFuture(parent).Wait())
	<-stopped
}

func TestSpawnWithoutParent(t *testing.T) {
	sys := actor.NewActorSystem()
	_, err := spawner.Spawn(sys.Root, nil, actor.PropsFromFunc(func(actor.Context) {}), "")
	if !errors.Is(err, spawner.ErrNoParent) {
		t.Fatalf("got %v, want ErrNoParent", err)
	}
}

// A Start sent without waiting, then a Tell: the child exists when the
// Tell reaches it, whatever the timing, since the spawner keeps the order.
func TestStartThenTell(t *testing.T) {
	sys := actor.NewActorSystem()
	parent, err := sys.Root.SpawnNamed(spawner.Props("link", nil), "chain-links")
	testkit.NoError(t, err)
	got := make(chan string, 1)
	sys.Root.Send(parent, &spawner.Start{Name: "s1", Props: actor.PropsFromFunc(func(c actor.Context) {
		if s, ok := c.Message().(string); ok {
			got <- c.Self().Id + " " + s
		}
	})})
	sys.Root.Send(parent, &spawner.Tell{Name: "s1", Msg: "hello"})
	testkit.Equal(t, <-got, "chain-links/s1 hello")
	testkit.Equal(t, spawner.Child(parent, "s1").Id, "chain-links/s1")
}
