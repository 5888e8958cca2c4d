package session

import (
	"testing"
	"time"
)

// IdleTimeout has one meaning wherever it is set: 0 is the default,
// negative never passivates.
func TestIdleAfter(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{
		0:               DefaultIdleTimeout,
		-1:              0,
		5 * time.Second: 5 * time.Second,
	} {
		if got := (Config{IdleTimeout: in}).idleAfter(); got != want {
			t.Errorf("IdleTimeout %v: idles %v, want %v", in, got, want)
		}
	}
}
