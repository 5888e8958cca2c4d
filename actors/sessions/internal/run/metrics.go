package run

import (
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/metrics"
)

// observeUsage counts a step's tokens by kind.
func observeUsage(u event.Usage) {
	for _, k := range [...]struct {
		kind string
		n    int64
	}{{"input", u.Input}, {"output", u.Output}, {"cache_read", u.CacheRead}, {"cache_write", u.CacheWrite}} {
		if k.n > 0 {
			metrics.ModelTokens.WithLabelValues(k.kind).Add(float64(k.n))
		}
	}
}

// observePermission records how long a call's permission request waited
// for its outcome (allowed, denied or cancelled).
func observePermission(c *call, outcome string) {
	if c.asked.IsZero() {
		return
	}
	metrics.PermissionWaitSeconds.WithLabelValues(outcome).Observe(time.Since(c.asked).Seconds())
	c.asked = time.Time{}
}
