package spawner

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/actorlog"
)

// Start asks a spawner for a child; the answer is *Started.
type Start struct {
	Props *actor.Props
	Name  string // "" for a generated one
}

// A Start sent rather than requested (no sender) is a spawn nobody waits
// for: code inside an actor, which must not block on the answer, starts a
// child that way and reaches it with Tell, which the spawner delivers after
// the Start before it.

// Tell delivers Msg to the spawner's child named Name.
type Tell struct {
	Name string
	Msg  any
}

// Started answers Start.
type Started struct {
	PID *actor.PID
	Err error
}

// Props is a spawner naming its unnamed children prefix+"$N". Its children's failures are decided by decider
// (nil: protoactor's default, restart); it never fails itself.
func Props(prefix string, decider actor.DeciderFunc, middleware ...actor.ReceiverMiddleware) *actor.Props {
	if decider == nil {
		decider = actor.DefaultDecider
	}
	return actor.PropsFromProducer(func() actor.Actor { return parent{prefix: prefix} },
		actor.WithSupervisor(actor.NewOneForOneStrategy(10, 10*time.Second, decider)),
		actor.WithReceiverMiddleware(middleware...))
}

// parent names a child without a name of its own prefix+"$N", so the
// live tree says what each child is.
type parent struct{ prefix string }

func (p parent) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	case *Start:
		var pid *actor.PID
		var err error
		if m.Name == "" {
			pid = ctx.SpawnPrefix(m.Props, p.prefix)
		} else {
			pid, err = ctx.SpawnNamed(m.Props, m.Name)
		}
		if ctx.Sender() != nil {
			ctx.Respond(&Started{PID: pid, Err: err})
			return
		}
		if err != nil {
			actorlog.For(ctx, "child", m.Name).Error("spawn failed", "error", err)
		}
	case *Tell:
		ctx.Send(Child(ctx.Self(), m.Name), m.Msg)
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}

// Child is the PID the spawner at parent gives its child named name.
func Child(parent *actor.PID, name string) *actor.PID {
	return actor.NewPID(parent.Address, parent.Id+"/"+name)
}

// ErrNoParent is a spawn asked of no spawner.
var ErrNoParent = errors.New("spawner: no parent to start the actor under")

// askTimeout bounds one spawn: the spawner answers at once unless the
// system is shutting down.
const askTimeout = 10 * time.Second

// Spawn starts props under the spawner at parent, from code outside any
// actor; name "" lets the spawner pick one.
func Spawn(root *actor.RootContext, parent *actor.PID, props *actor.Props, name string) (*actor.PID, error) {
	if parent == nil {
		return nil, ErrNoParent
	}
	res, err := root.RequestFuture(parent, &Start{Props: props, Name: name}, askTimeout).Result()
	if err != nil {
		return nil, fmt.Errorf("spawn under %s: %w", parent.Id, err)
	}
	s, ok := res.(*Started)
	if !ok {
		return nil, fmt.Errorf("spawn under %s: unexpected answer %T", parent.Id, res)
	}
	if s.Err != nil {
		return nil, fmt.Errorf("spawn under %s: %w", parent.Id, s.Err)
	}
	return s.PID, nil
}
