package llmserver

import (
	"log/slog"
	"net/http"
	"time"
)

type config struct {
	addr      string
	now       func() time.Time
	log       *slog.Logger
	onRequest func(Request)
	tb        TB
	hold      bool
	replier   func(request map[string]any) Reply
	wrap      func(http.Handler) http.Handler
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

// WithHold starts the server loading: every route answers 503 "Loading
// model" until SetReady, whatever Script.Loading says. It is for a program
// standing in for llama-server, whose load ends when it says so
// (testkit/cmd/fake-llama-server).
func WithHold() Option { return func(c *config) { c.hold = true } }

// WithReplier answers every chat request after Script.Replies run out
// with the reply fn makes of the request's body (its parsed JSON), in
// place of Script.Default: a reply that depends on what was asked, such
// as an echo of the last user message. A reply that does not check is
// the request's error, as an exhausted script is.
func WithReplier(fn func(request map[string]any) Reply) Option {
	return func(c *config) { c.replier = fn }
}

// WithMiddleware wraps the server's handler, for a program that must act
// on a request before the server sees it (a crash or a hang on demand).
// Close does not wait for what the wrapper does outside the server.
func WithMiddleware(wrap func(http.Handler) http.Handler) Option {
	return func(c *config) { c.wrap = wrap }
}
