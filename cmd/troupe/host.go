package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/runtime/datahome"
)

// hostSetup is what differs between the commands that host sessions (run,
// acp, --mode rpc, --json-stream, mcp); startHost does the rest of their
// one prologue the same way for each.
type hostSetup struct {
	// Command names the process in the session leases it takes.
	Command string
	// Engine are the session engine's options; startHost fills in Home.
	Engine engine.Options
	// Check refuses to start without a model that resolves.
	Check bool
	// LongLived starts the llama-server supervisor at boot, its servers
	// outliving a crash (Runtime.StartLongLivedServers); otherwise a session's
	// first request to a llama config starts one (actors.LazyServers).
	LongLived bool
	// StoreHome is where the store lives when not in the data home
	// (--session-dir, --no-session).
	StoreHome string
	// Faults wraps the transports in the fault injection of test builds.
	Faults bool
}

// host is a command's booted session host.
type host struct {
	log  *slog.Logger
	home string
	eng  *engine.Engine
	rt   *actors.Runtime
	// servers is the llama-server supervisor of a LongLived host.
	servers *actor.PID
	// ctx ends on SIGINT/SIGTERM; stop releases the signals.
	ctx  context.Context
	stop context.CancelFunc
}

// hostError is a prologue's failure with the command's exit code for it:
// 2 what the user asked for (flags, models), 1 what the machine refused.
type hostError struct {
	code int
	err  error
}

func (e *hostError) Error() string { return e.err.Error() }
func (e *hostError) Unwrap() error { return e.err }

// exitCodeOf is a startHost error's exit code.
func exitCodeOf(err error) int {
	if he := (*hostError)(nil); errors.As(err, &he) {
		return he.code
	}
	return 1
}

// startHost runs the prologue: the logger from the common flags, the data
// home, the engine, the llama-servers, the runtime and the signals. The
// caller stops the signals (h.stop) and shuts the runtime down.
func startHost(common commonFlags, s hostSetup) (*host, error) {
	log, err := common.logger()
	if err != nil {
		return nil, &hostError{2, err}
	}
	home, err := datahome.Resolve(common.home, log)
	if err != nil {
		return nil, &hostError{1, err}
	}
	s.Engine.Home = home
	eng, err := engine.New(s.Engine)
	if err != nil {
		return nil, &hostError{2, err}
	}
	var local *actors.LazyServers
	if !s.LongLived {
		local = &actors.LazyServers{} // --provider llama: the home's llama-server configs
		eng.SetLocalServers(local)
	}
	if s.Check && !s.LongLived {
		if err := eng.Check(); err != nil {
			return nil, &hostError{2, err}
		}
	}
	opts := actors.Options{Home: home, Logger: log, Engine: eng.Session(), Command: s.Command}
	if s.StoreHome != "" {
		opts.Home = s.StoreHome
	}
	if s.Faults {
		opts.TransportMiddleware = transportFaults()
	}
	rt, err := actors.Start(opts)
	if err != nil {
		return nil, &hostError{1, err}
	}
	if local != nil {
		local.Bind(rt)
	}
	h := &host{log: log, home: home, eng: eng, rt: rt}
	if s.LongLived {
		if h.servers, err = rt.StartLongLivedServers(eng); err != nil {
			return nil, &hostError{1, errors.Join(err, shutdown(rt))}
		}
	}
	h.ctx, h.stop = actors.NotifyShutdown(context.Background(), log)
	return h, nil
}
