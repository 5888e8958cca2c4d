package session

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// eventually polls cond for up to 5 s (testkit imports this package).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
	}
}

type crash struct{}

// The session's strategy restarts a crashed MCP server actor (named
// mcp-<i>), keeping its PID, and stops any other crashed child.
func TestChildStrategyRestartsOnlyMCPServers(t *testing.T) {
	sys := actor.NewActorSystem()
	var mcpStarts, otherStarts atomic.Int32
	var otherStopped atomic.Bool
	child := func(starts *atomic.Int32) *actor.Props {
		return actor.PropsFromFunc(func(ctx actor.Context) {
			switch ctx.Message().(type) {
			case *actor.Started:
				starts.Add(1)
			case *crash:
				panic("injected fault")
			}
		})
	}
	var mcpPID, otherPID *actor.PID
	ready := make(chan struct{})
	parent := sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *actor.Started:
			mcpPID, _ = ctx.SpawnNamed(child(&mcpStarts), mcpChildPrefix+"0")
			otherPID = ctx.Spawn(child(&otherStarts))
			ctx.Watch(otherPID)
			close(ready)
		case *actor.Terminated:
			if m.Who.Equal(otherPID) {
				otherStopped.Store(true)
			}
		}
	}, actor.WithSupervisor(newChildStrategy())))
	t.Cleanup(func() { _ = sys.Root.StopFuture(parent).Wait() })
	<-ready
	if !isMCPChild(mcpPID) || isMCPChild(otherPID) {
		t.Fatalf("isMCPChild(%s)=%v, isMCPChild(%s)=%v", mcpPID.Id, isMCPChild(mcpPID), otherPID.Id, isMCPChild(otherPID))
	}

	sys.Root.Send(mcpPID, &crash{})
	sys.Root.Send(otherPID, &crash{})
	eventually(t, "the mcp child started again under its PID", func() bool { return mcpStarts.Load() == 2 })
	eventually(t, "the other child stopped", otherStopped.Load)
	if n := otherStarts.Load(); n != 1 {
		t.Fatalf("the other child started %d times", n)
	}
}
