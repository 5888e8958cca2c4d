package session

import "github.com/asynkron/protoactor-go/actor"

// withDispatcher is actor.WithDispatcher, or nothing for a nil one.
func withDispatcher(d actor.Dispatcher) actor.PropsOption {
	return func(p *actor.Props) {
		if d != nil {
			actor.WithDispatcher(d)(p)
		}
	}
}
