//go:build !troupe_faults

package main

import "github.com/asynkron/protoactor-go/actor"

// transportFaults is empty in a real binary (see faults.go).
func transportFaults() []actor.ReceiverMiddleware { return nil }

// sessionFaults is empty in a real binary (see faults.go).
func sessionFaults() []actor.ReceiverMiddleware { return nil }
