//go:build troupe_faults

package main

import (
	"bytes"
	"fmt"
	"os"
	"sync/atomic"

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

// sessionFaults makes a session panic once, on the first message it
// receives whose Go type is $TROUPE_FAULT_SESSION_PANIC (e.g.
// "*session.CancelRun"): a failure its supervisor restarts it from, for
// the tests of what a restart shows (troupe_actor_restarts_total).
func sessionFaults() []actor.ReceiverMiddleware {
	typ := os.Getenv("TROUPE_FAULT_SESSION_PANIC")
	if typ == "" {
		return nil
	}
	var fired atomic.Bool
	return []actor.ReceiverMiddleware{func(next actor.ReceiverFunc) actor.ReceiverFunc {
		return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
			if fmt.Sprintf("%T", env.Message) == typ && fired.CompareAndSwap(false, true) {
				panic("injected fault: " + typ)
			}
			next(c, env)
		}
	}}
}
