package servers

import (
	"log/slog"
	"time"

	"github.com/troupehq/troupe/runtime/backoff"

	"github.com/troupehq/troupe/persistence"
)

// Options tune the supervisor. The zero value is what troupe runs with.
type Options struct {
	// Backoff is the first restart's delay, doubled for each further one up
	// to MaxBackoff. Defaults: 500ms, 30s.
	Backoff, MaxBackoff time.Duration
	// StableAfter is how long a run must stay healthy for the next crash
	// to start the backoff over. Default 60s.
	StableAfter time.Duration
	// StopGrace is the SIGTERM-to-SIGKILL grace of Stop and of shutdown.
	// Default 10s, as llama.cpp advises.
	StopGrace time.Duration
	// PollEvery is the /health poll interval while loading. Default 5ms:
	// a request on loopback costs far less, and readiness is seen sooner.
	PollEvery time.Duration
	// Store, when set, records each running server's pid, group and port
	// (and forgets it when it ends), for Cleanup after a crash of troupe.
	Store *persistence.Store
	// Outlive starts the programs so that they keep running if troupe
	// dies (see process.Spec.Outlive), for the next troupe to adopt
	// (Reclaim); their output then goes to LogDir/<config>.log instead of
	// the log. A long-lived troupe sets it (troupe daemon, troupe stdio); a
	// one-shot troupe run does not, and its servers die with it.
	Outlive bool
	LogDir  string
	// OnEvent receives every status change, from an actor: never block.
	OnEvent func(Event)
	// Log receives the programs' output lines at debug level, tagged with
	// the config name; nil is slog.Default.
	Log *slog.Logger
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Backoff, 500*time.Millisecond)
	def(&o.MaxBackoff, 30*time.Second)
	def(&o.StableAfter, 60*time.Second)
	def(&o.StopGrace, 10*time.Second)
	def(&o.PollEvery, 5*time.Millisecond)
	if o.OnEvent == nil {
		o.OnEvent = func(Event) {}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return o
}

// backoff is the restart delays these options set.
func (o Options) backoff() backoff.Policy {
	return backoff.Policy{Base: o.Backoff, Max: o.MaxBackoff, StableAfter: o.StableAfter}
}
