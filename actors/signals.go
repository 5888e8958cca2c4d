package actors

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// NotifyShutdown returns a context cancelled by the first SIGINT or SIGTERM,
// which starts an orderly shutdown. A second signal exits at once: a person
// pressing ^C twice means it. stop releases the signal handlers.
func NotifyShutdown(parent context.Context, log *slog.Logger) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			log.Info("shutting down", "signal", s.String())
			cancel()
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
