package mcp

import (
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/troupehq/troupe/runtime/backoff"
)

// SetConnectTimeout shortens the connect deadline for one test.
func SetConnectTimeout(t *testing.T, d time.Duration) {
	old := connectTimeout
	connectTimeout = d
	t.Cleanup(func() { connectTimeout = old })
}

// SetBackoff sets the reconnect delays for one test.
func SetBackoff(t *testing.T, initial, maxDelay, stable time.Duration) {
	old := reconnect
	reconnect = backoff.Policy{Base: initial, Max: maxDelay, StableAfter: stable}
	t.Cleanup(func() { reconnect = old })
}

// WithDial has the actor connect through dial instead of its
// configuration's transport.
func WithDial(dial func() (sdk.Transport, error)) Option {
	return func(s *server) { s.dial = dial }
}

// Backoff is the delay before reconnect attempt n.
func Backoff(n int) time.Duration { return reconnect.Delay(n) }
