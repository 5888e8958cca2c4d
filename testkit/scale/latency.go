package scale

import (
	"slices"
	"time"
)

// quantiles are the median and 99th percentile of lat (sorted in place),
// and how many there are; zeros for none.
func quantiles(lat []time.Duration) (p50, p99 time.Duration, n int) {
	if len(lat) == 0 {
		return 0, 0, 0
	}
	slices.Sort(lat)
	at := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
	return at(0.5), at(0.99), len(lat)
}
