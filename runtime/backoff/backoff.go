// Package backoff computes the delays of exponential backoff, the one
// formula every restart and retry in troupe uses: the session supervisor's
// restarts, a run's retries of a provider, an MCP server's reconnects, a
// llama-server's and a plugin program's restarts. Each keeps its own
// figures in a Policy.
//
// It owns only the arithmetic: no timers, no goroutines, no counters. The
// caller keeps its count of failures in a row and schedules the delay
// itself (time.AfterFunc sending to its own actor), so nothing here blocks
// a mailbox.
//
// The formula is Base·2^n capped at Max, an optional jitter after the cap,
// and Stable to start counting again once a run lasted StableAfter; each
// user has its own figures. It is only arithmetic: no timers.
//
// It imports no troupe package.
package backoff

import (
	"math"
	"math/rand/v2"
	"time"
)

// Policy is one kind of retry's figures. The zero value waits nothing.
type Policy struct {
	// Base is the first delay, doubled for each failure after it.
	Base time.Duration
	// Max caps the doubled delay; 0 leaves it uncapped (a run's retries,
	// which MaxAttempts bounds instead).
	Max time.Duration
	// Jitter, when set, adds a random delay from 0 to Jitter (both
	// included) after the cap, so that things that failed together do not
	// all come back at the same instant.
	Jitter time.Duration
	// StableAfter is how long a run must last for its end to start the
	// count of failures again (see Stable); 0 never starts it again.
	StableAfter time.Duration
}

// Delay is the wait before retry n, counted from 0: Base·2^n, at most Max,
// plus the jitter. It saturates instead of overflowing.
func (p Policy) Delay(n int) time.Duration {
	d := max(p.Base, 0)
	for i := 0; i < n && d > 0; i++ {
		if p.Max > 0 && d >= p.Max {
			break
		}
		if d > math.MaxInt64/2 {
			d = math.MaxInt64
			break
		}
		d *= 2
	}
	if p.Max > 0 {
		d = min(d, p.Max)
	}
	if p.Jitter > 0 {
		d = saturatingAdd(d, time.Duration(rand.Int64N(int64(p.Jitter)+1)))
	}
	return d
}

// Stable reports whether a run that lasted ran has earned a fresh start:
// the caller then counts its next failure as the first (n = 0) again.
func (p Policy) Stable(ran time.Duration) bool {
	return p.StableAfter > 0 && ran >= p.StableAfter
}

func saturatingAdd(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
