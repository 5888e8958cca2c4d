package testkit

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/runtime/logging"
)

// Boot starts a runtime on a fresh temporary home (unless opts.Home is set)
// and shuts it down when the test ends. Logs go to stderr only with -v or
// TROUPE_LOG set, so passing tests stay quiet.
func Boot(t testing.TB, opts actors.Options) *actors.Runtime {
	t.Helper()
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	if opts.Logger == nil {
		opts.Logger = TestLogger(t)
	}
	rt, err := actors.Start(opts)
	if err != nil {
		t.Fatalf("boot runtime: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := rt.Shutdown(ctx); err != nil {
			t.Errorf("shutdown runtime: %v", err)
		}
	})
	return rt
}

// TestLogger logs to stderr at $TROUPE_LOG (default warn) when the test runs
// verbosely, and nowhere otherwise.
func TestLogger(t testing.TB) *slog.Logger {
	var w io.Writer = io.Discard
	if testing.Verbose() || os.Getenv("TROUPE_LOG") != "" {
		w = os.Stderr
	}
	log, err := logging.New(logging.Options{Writer: w})
	if err != nil {
		t.Fatalf("logger: %v", err)
	}
	return log
}
