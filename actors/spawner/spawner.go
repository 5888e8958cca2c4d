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
		if m.Name == "" {
			ctx.Respond(&Started{PID: ctx.SpawnPrefix(m.Props, p.prefix)})
			return
		}
		pid, err := ctx.SpawnNamed(m.Props, m.Name)
		ctx.Respond(&Started{PID: pid, Err: err})
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
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
