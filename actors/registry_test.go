package actors

import (
	"time"

	"testing"

	"github.com/asynkron/protoactor-go/actor"
)

// An actor system's process registry is made with one shard per bucket
// (registry.go): 1,024 buckets, not 32,768 maps. Counted in allocations,
// which do not depend on the machine's load; it was over 65,000 before.
func TestActorSystemRegistryIsSmall(t *testing.T) {
	allocs := testing.AllocsPerRun(3, func() {
		sys := actor.NewActorSystem()
		sys.Shutdown()
	})
	if allocs > 8000 {
		t.Fatalf("an actor system starts with %.0f allocations, want at most 8,000", allocs)
	}
}

// Actors spawned under many names are all found by their PIDs: the
// registry's buckets of one shard each keep every entry.
func TestActorSystemRegistryFindsEveryActor(t *testing.T) {
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	props := actor.PropsFromFunc(func(c actor.Context) {
		if s, ok := c.Message().(string); ok {
			c.Respond(s)
		}
	})
	var pids []*actor.PID
	for range 3000 {
		pids = append(pids, sys.Root.Spawn(props))
	}
	for _, pid := range pids {
		res, err := sys.Root.RequestFuture(pid, pid.Id, 5*time.Second).Result()
		if err != nil || res != pid.Id {
			t.Fatalf("%s answered %v, %v", pid.Id, res, err)
		}
	}
}
