package logging

import (
	"context"
	"log/slog"
	goruntime "runtime"
	"strings"
)

// libraryPackage prefixes the functions of protoactor's own code.
const libraryPackage = "github.com/asynkron/protoactor-go/"

// actorSystemHandler is the actor system's log handler. troupe's actors
// log through the same logger (ctx.Logger()) as protoactor itself, so the
// record's call site tells them apart: protoactor's records are tagged
// lib=protoactor and held to the library's floor level; troupe's own go to
// the process logger as they are, at its level.
type actorSystemHandler struct {
	own slog.Handler // troupe's records
	lib slog.Handler // protoactor's: own with lib=protoactor
	min slog.Level   // protoactor's floor
}

func NewActorSystemHandler(h slog.Handler, libMin slog.Level) slog.Handler {
	return actorSystemHandler{own: h, lib: h.WithAttrs([]slog.Attr{slog.String("lib", "protoactor")}), min: libMin}
}

// Enabled cannot see the call site yet, so it answers for troupe's
// records; Handle drops the library's below its floor.
func (h actorSystemHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.own.Enabled(ctx, l)
}

func (h actorSystemHandler) Handle(ctx context.Context, r slog.Record) error {
	if !fromLibrary(r.PC) {
		return h.own.Handle(ctx, r)
	}
	if r.Level < h.min {
		return nil
	}
	return h.lib.Handle(ctx, r)
}

func (h actorSystemHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return actorSystemHandler{own: h.own.WithAttrs(a), lib: h.lib.WithAttrs(a), min: h.min}
}

func (h actorSystemHandler) WithGroup(n string) slog.Handler {
	return actorSystemHandler{own: h.own.WithGroup(n), lib: h.lib.WithGroup(n), min: h.min}
}

// fromLibrary reports whether the record was logged by protoactor's code.
// A record without a call site is troupe's.
func fromLibrary(pc uintptr) bool {
	if pc == 0 {
		return false
	}
	frame, _ := goruntime.CallersFrames([]uintptr{pc}).Next()
	return strings.HasPrefix(frame.Function, libraryPackage)
}
