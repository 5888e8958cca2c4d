package cluster

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions/cluster/clusterpb"
)

// A grain stopped while a request waits on its member (the identity
// lookup stops one a requester with an older topology activated on a
// member that does not own it) answers the request as a dead letter, which
// the router sends again, instead of leaving it to time out. It timed out
// before: a member's clients waited 30 s after another member rejoined.
func TestGrainStoppedMidRequestAnswersADeadLetter(t *testing.T) {
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	// The member's registry never answers: the request stays in flight.
	registry := sys.Root.Spawn(actor.PropsFromFunc(func(actor.Context) {}))
	g := sys.Root.Spawn(grainProps(registry, nil, true, &atomic.Bool{}))
	f := sys.Root.RequestFuture(g, &clusterpb.Request{SessionId: "s-1", Body: &clusterpb.Request_Kill{Kill: &clusterpb.Kill{}}}, 10*time.Second)
	// The request reached the grain before its stop (both go through its
	// mailbox in order).
	sys.Root.Poison(g)
	res, err := f.Result()
	if !deadLetter(res, err) {
		t.Fatalf("the request's answer: %T %v, error %v", res, res, err)
	}
}
