package rpc

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/stdio"
)

// Config is what one connection needs.
type Config struct {
	In      io.Reader
	Out     io.Writer
	MaxLine int // 0: stdio.DefaultMaxLine

	Sessions *sessions.Client
	// Models is the engine's catalog; it answers get_available_models,
	// set_model and the Model objects. Nil knows no models.
	Models   sessions.Models
	Thinking string // the default thinking level
	Cwd      string
	// SessionID continues that session; empty starts a new one, created in
	// the store when first needed.
	SessionID string
	// NoSession: the store is thrown away at exit, so no sessionFile is
	// reported.
	NoSession bool
	// Partials is what message_update carries; the zero value is the
	// spec's full partial message.
	Partials Partials
	Log      *slog.Logger
}

// ExitTerminated is the status after SIGTERM, as pi exits.
const ExitTerminated = 143

// Serve runs one connection until stdin ends (0) or ctx is cancelled (the
// first SIGTERM: the running work is aborted, ExitTerminated). Everything
// owed to stdout is written before it returns.
func Serve(ctx context.Context, sys *actor.ActorSystem, cfg Config) int {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	done := make(chan int, 1)
	var connPID atomic.Pointer[actor.PID]
	out := &meter{w: cfg.Out, wake: func() {
		if pid := connPID.Load(); pid != nil {
			sys.Root.Send(pid, &drained{})
		}
	}}
	writer := sys.Root.Spawn(stdio.WriterProps(out))
	conn := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return newConn(cfg, writer, out, done) }))
	connPID.Store(conn)
	defer func() {
		sys.Root.Stop(conn)
		sys.Root.Stop(writer)
	}()
	select {
	case code := <-done:
		return code
	case <-ctx.Done():
	}
	sys.Root.Send(conn, &terminate{})
	select {
	case code := <-done:
		return code
	case <-time.After(15 * time.Second):
		cfg.Log.Warn("rpc connection did not settle after SIGTERM")
		return ExitTerminated
	}
}
