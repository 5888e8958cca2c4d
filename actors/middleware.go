package actors

import (
	"fmt"
	"runtime/debug"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/runtime/metrics"
)

// logPanics logs a panic with its stack, then re-panics so the supervisor
// still decides: protoactor itself logs only the reason, at Info. It also
// counts the restarts its supervisor decided (the *actor.Restarting the
// actor receives) by the actor's kind.
func logPanics(next actor.ReceiverFunc) actor.ReceiverFunc {
	return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
		if _, ok := env.Message.(*actor.Restarting); ok {
			metrics.ActorRestarts.WithLabelValues(metrics.ActorKind(c.Self().Id)).Inc()
		}
		defer func() {
			if r := recover(); r != nil {
				c.Logger().Error("actor panicked", "actor", c.Self().Id,
					"message", fmt.Sprintf("%T", env.Message), "reason", fmt.Sprint(r), "stack", string(debug.Stack()))
				panic(r)
			}
		}()
		next(c, env)
	}
}
