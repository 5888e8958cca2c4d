package llmserver

import (
	"log/slog"
	"time"
)

type config struct {
	addr      string
	now       func() time.Time
	log       *slog.Logger
	onRequest func(Request)
	tb        TB
}

// TB is what New and WithTest need of a test; testing.TB is one. Declared
// here so that troupe sim, which plays scripts in the production binary,
// does not link package testing.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Option configures Start and New.
type Option func(*config)

// WithAddr listens on addr instead of 127.0.0.1:0.
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithClock sets the clock behind the "created" fields, for byte-exact
// comparisons.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithLogger logs one line per request at debug level (failures of the
// server itself at warn).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.log = l
		}
	}
}

// OnRequest calls fn with the final record of every request once the
// server has finished answering it, from the request's goroutine, before
// WaitDone reports the request done.
func OnRequest(fn func(Request)) Option { return func(c *config) { c.onRequest = fn } }
