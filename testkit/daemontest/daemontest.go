// Package daemontest starts `troupe daemon` in the test's own process
// (transports/daemon.Start), so that its concurrent code runs under the
// race detector the test runs with, and several daemons share one test
// binary. It installs no signal handler and changes no process-wide
// state; tests that need the process itself (signals, a kill -9, exit
// codes, the CLI) start the binary instead.
package daemontest

import (
	"context"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/logging"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/transports/daemon"
)

// stopWait bounds the daemon's shutdown at the test's end, as the
// command's does.
const stopWait = 30 * time.Second

// Start starts the daemon from cfg on 127.0.0.1:0 (unless cfg.Listen
// names an address) in a fresh home (unless cfg.Home names one) and shuts
// it down at the test's end, failing the test if the shutdown fails. Its
// logs, unless cfg.Log takes them, are shown when the test fails.
func Start(t testing.TB, cfg daemon.Config) *daemon.Daemon {
	t.Helper()
	if cfg.Home == "" {
		cfg.Home = t.TempDir()
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	cfg.Signals = false
	var logs *testkit.Buffer
	if cfg.Log == nil {
		logs = new(testkit.Buffer)
		log, err := logging.New(logging.Options{Writer: logs})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Log = log
	}
	d, err := daemon.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("start daemon: %v", err)
	}
	t.Cleanup(func() {
		Stop(t, d)
		if t.Failed() && logs != nil {
			t.Logf("the daemon's logs:\n%s", logs)
		}
	})
	return d
}

// Stop shuts d down within the command's bound; a later Stop (the test's
// cleanup) is a no-op that reports the same result.
func Stop(t testing.TB, d *daemon.Daemon) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stopWait)
	defer cancel()
	if err := d.Shutdown(ctx); err != nil {
		t.Errorf("stop daemon: %v", err)
	}
}
