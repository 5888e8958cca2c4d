package main

import (
	"context"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/transports"
)

// shutdownTimeout bounds a stdio command's shutdown: the transports stage
// (the aborted run's end), sessions, the store.
const shutdownTimeout = 30 * time.Second

// serveTransport runs one transport under rt until it reports Done or the
// first signal cancels ctx, then shuts rt down, whose transports stage
// terminates a transport still running and waits for what it owes its
// client. It returns the transport's Done and the shutdown's error.
func serveTransport(ctx context.Context, rt *actors.Runtime, props *actor.Props, name string) (transports.Done, error) {
	t, err := rt.StartTransport(props, name)
	if err != nil {
		return transports.Done{Code: 1, Err: err}, shutdown(rt)
	}
	select {
	case d := <-t.Done():
		return d, shutdown(rt)
	case <-ctx.Done():
	}
	serr := shutdown(rt)
	select {
	case d := <-t.Done():
		return d, serr
	default:
		// The transports stage reports every transport's end before
		// Shutdown returns; this is the stage failing (serr says how).
		return transports.Done{Code: 1, Err: fmt.Errorf("transport %s: %w", name, transports.ErrStopped)}, serr
	}
}

// shutdown stops rt within shutdownTimeout from now.
func shutdown(rt *actors.Runtime) error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	return rt.Shutdown(ctx)
}

// exitStatus is the command's exit status after a transport: its Done's
// code, or 1 when the transport failed or the shutdown did with code 0.
func exitStatus(d transports.Done, shutdownErr error, report func(error)) int {
	code := d.Code
	for _, err := range []error{d.Err, shutdownErr} {
		if err == nil {
			continue
		}
		report(err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
