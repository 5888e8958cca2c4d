package actors

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// NotifyShutdown returns a context cancelled by the first SIGINT or SIGTERM,
// which starts an orderly shutdown. A second signal exits at once: a person
// pressing ^C twice means it. stop releases the signal handlers.
func NotifyShutdown(parent context.Context, log *slog.Logger) (ctx context.Context, stop func()) {
	ctx, cancelCause := context.WithCancelCause(parent)
	cancel := func() { cancelCause(nil) }
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			log.Info("shutting down", "signal", s.String())
			cancelCause(signalCause{s})
		case <-done:
			return
		}
		select {
		case s := <-sigs:
			log.Warn("second signal: exiting now", "signal", s.String())
			os.Exit(2)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// signalCause is the cause of a NotifyShutdown context a signal ended.
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string { return "signal: " + c.sig.String() }

// ShutdownSignal is the signal that ended ctx, a NotifyShutdown context,
// or nil: a command exits 130 for SIGINT and 143 for SIGTERM, as shells
// and its hosts expect.
func ShutdownSignal(ctx context.Context) os.Signal {
	var c signalCause
	if errors.As(context.Cause(ctx), &c) {
		return c.sig
	}
	return nil
}
