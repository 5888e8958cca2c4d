// Package actorlog gives troupe's actors their loggers: the process logger
// (through the actor system) with the actor's identity attached, and one
// way to report a message an actor has no case for, so that nothing is
// dropped unseen. It holds no state and touches nothing but logging.
package actorlog

import (
	"fmt"
	"log/slog"
	"reflect"

	"github.com/asynkron/protoactor-go/actor"
)

// For is the logger of the actor behind ctx: its pid, then attrs (the
// session id, a tool call id, …).
func For(ctx actor.Context, attrs ...any) *slog.Logger {
	return ctx.Logger().With(append([]any{"actor", ctx.Self().Id}, attrs...)...)
}

// Unhandled logs the message an actor's Receive had no case for.
// protoactor's lifecycle and system messages (Started, Stopping,
// Terminated, …) reach every actor whether it cares or not, and are not
// reported.
func Unhandled(log *slog.Logger, ctx actor.Context) {
	msg := ctx.Message()
	if fromLibrary(msg) {
		return
	}
	sender := ""
	if s := ctx.Sender(); s != nil {
		sender = s.Id
	}
	log.Warn("unhandled message", "type", fmt.Sprintf("%T", msg), "sender", sender)
}

var libraryPkg = reflect.TypeOf(actor.Started{}).PkgPath()

func fromLibrary(msg any) bool {
	t := reflect.TypeOf(msg)
	if t == nil {
		return true
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == libraryPkg
}
