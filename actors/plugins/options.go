package plugins

import (
	"log/slog"
	"time"

	"github.com/troupehq/troupe/runtime/backoff"
)

// Options tune a supervisor. The zero value is what the daemon runs with,
// once Kind, Tokens and URL are set.
type Options struct {
	Kind   string
	Tokens *Tokens
	// URL is the daemon's /acp WebSocket URL, handed to each program.
	URL string
	// Backoff is the first restart's delay, doubled for each further one
	// up to MaxBackoff. Defaults: 500ms, 1 min.
	Backoff, MaxBackoff time.Duration
	// StableAfter is how long a run must live for the next crash to start
	// the backoff over. Default 1 min.
	StableAfter time.Duration
	// StopGrace is the SIGTERM-to-SIGKILL grace of a stop. Default 5s.
	StopGrace time.Duration
	// LogDir, when set, is where each program's output is appended:
	// LogDir/<name>/current.log, where Hydra keeps it (its CLI's
	// `extensions logs` tails that file). Unset, output lines go to Log
	// at debug level only.
	LogDir string
	// OnEvent receives every status change, from an actor: never block.
	OnEvent func(Info)
	Log     *slog.Logger
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Backoff, 500*time.Millisecond)
	def(&o.MaxBackoff, time.Minute)
	def(&o.StableAfter, time.Minute)
	def(&o.StopGrace, 5*time.Second)
	if o.OnEvent == nil {
		o.OnEvent = func(Info) {}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Tokens == nil {
		o.Tokens = NewTokens()
	}
	return o
}

// backoff is the restart delays these options set.
func (o Options) backoff() backoff.Policy {
	return backoff.Policy{Base: o.Backoff, Max: o.MaxBackoff, StableAfter: o.StableAfter}
}
