package testkit

import (
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
)

// PanicWhen is a receiver middleware that panics, before the actor sees
// the message, whenever cond returns true. Pass it in
// boot.Options.SessionMiddleware to crash sessions mid-work.
func PanicWhen(cond func(msg any) bool) actor.ReceiverMiddleware {
	return func(next actor.ReceiverFunc) actor.ReceiverFunc {
		return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
			if cond(env.Message) {
				panic("testkit: injected fault")
			}
			next(c, env)
		}
	}
}

// Switch is a fault condition that can be armed and disarmed from the test.
type Switch struct{ on atomic.Bool }

// Arm makes the switch fire; Disarm stops it.
func (s *Switch) Arm()    { s.on.Store(true) }
func (s *Switch) Disarm() { s.on.Store(false) }

// Armed reports the switch.
func (s *Switch) Armed() bool { return s.on.Load() }
