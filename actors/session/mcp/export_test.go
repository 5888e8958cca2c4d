package mcp

import (
	"testing"
	"time"
)

// SetConnectTimeout shortens the connect deadline for one test.
func SetConnectTimeout(t *testing.T, d time.Duration) {
	old := connectTimeout
	connectTimeout = d
	t.Cleanup(func() { connectTimeout = old })
}
