package mcp

import "time"

// Reconnect delays: a dropped server is started (or reconnected) again
// after initialBackoff, doubled on each failure in a row up to maxBackoff.
// A connection that stayed up for stableAfter starts the count again.
// Variables so tests can shorten them.
var (
	initialBackoff = 250 * time.Millisecond
	maxBackoff     = 30 * time.Second
	stableAfter    = 10 * time.Second
)

// backoff is the delay before reconnect attempt n (0-based).
func backoff(n int) time.Duration {
	d := initialBackoff
	for range n {
		if d >= maxBackoff/2 {
			return maxBackoff
		}
		d *= 2
	}
	return min(d, maxBackoff)
}
