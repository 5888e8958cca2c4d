package mcp

import (
	"time"

	"github.com/troupehq/troupe/runtime/backoff"
)

// reconnect is when a dropped server is started (or reconnected) again:
// 250ms, doubled on each failure in a row up to 30s; a connection that
// stayed up for 10s starts the count again. A variable so tests can
// shorten it.
var reconnect = backoff.Policy{
	Base:        250 * time.Millisecond,
	Max:         30 * time.Second,
	StableAfter: 10 * time.Second,
}
