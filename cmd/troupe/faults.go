//go:build troupe_faults

package main

import (
	"bytes"
	"os"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/transports/stdio"
)

// transportFaults makes a transport panic on an input line holding the
// text of $TROUPE_FAULT_TRANSPORT_PANIC: the crash tests' way into a real
// binary. Only a binary built with -tags troupe_faults has it.
func transportFaults() []actor.ReceiverMiddleware {
	marker := os.Getenv("TROUPE_FAULT_TRANSPORT_PANIC")
	if marker == "" {
		return nil
	}
	return []actor.ReceiverMiddleware{func(next actor.ReceiverFunc) actor.ReceiverFunc {
		return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
			if in, ok := env.Message.(*stdio.Input); ok && bytes.Contains(in.Line, []byte(marker)) {
				panic("injected fault: " + marker)
			}
			next(c, env)
		}
	}}
}
