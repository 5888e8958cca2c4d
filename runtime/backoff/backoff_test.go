package backoff_test

import (
	"math"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/backoff"
)

const ms = time.Millisecond

func TestDelayDoublesUpToTheCap(t *testing.T) {
	p := backoff.Policy{Base: 500 * ms, Max: time.Minute}
	want := []time.Duration{500 * ms, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
		16 * time.Second, 32 * time.Second, time.Minute, time.Minute}
	for n, w := range want {
		if got := p.Delay(n); got != w {
			t.Errorf("Delay(%d) = %s, want %s", n, got, w)
		}
	}
	if got := p.Delay(1 << 30); got != time.Minute {
		t.Errorf("Delay(2^30) = %s, want the cap", got)
	}
}

func TestDelayCapsEvenTheFirst(t *testing.T) {
	p := backoff.Policy{Base: time.Second, Max: 300 * ms}
	if got := p.Delay(0); got != 300*ms {
		t.Errorf("Delay(0) = %s, want the cap 300ms", got)
	}
}

func TestDelayUncappedSaturates(t *testing.T) {
	p := backoff.Policy{Base: 2 * time.Second}
	for n, w := range []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second} {
		if got := p.Delay(n); got != w {
			t.Errorf("Delay(%d) = %s, want %s", n, got, w)
		}
	}
	if got := p.Delay(100); got != math.MaxInt64 {
		t.Errorf("Delay(100) = %d, want it saturated at %d", got, int64(math.MaxInt64))
	}
}

func TestDelayOfNothing(t *testing.T) {
	var p backoff.Policy
	if got := p.Delay(5); got != 0 {
		t.Errorf("zero Policy: Delay(5) = %s, want 0", got)
	}
	if got := (backoff.Policy{Base: time.Second}).Delay(-1); got != time.Second {
		t.Errorf("Delay(-1) = %s, want Base", got)
	}
}

func TestJitterStaysWithinItsBoundAndVaries(t *testing.T) {
	p := backoff.Policy{Base: 50 * ms, Max: 5 * time.Second, Jitter: 50 * ms / 4}
	seen := map[time.Duration]bool{}
	for range 1000 {
		got := p.Delay(2) // 200ms before the jitter
		if got < 200*ms || got > 200*ms+p.Jitter {
			t.Fatalf("Delay(2) = %s, want within [200ms, %s]", got, 200*ms+p.Jitter)
		}
		seen[got] = true
	}
	if len(seen) < 2 {
		t.Fatalf("1000 jittered delays were all %v", seen)
	}
	if got := p.Delay(20); got < 5*time.Second || got > 5*time.Second+p.Jitter {
		t.Errorf("Delay(20) = %s: the jitter comes after the cap", got)
	}
}

func TestStable(t *testing.T) {
	p := backoff.Policy{StableAfter: time.Minute}
	for _, c := range []struct {
		ran  time.Duration
		want bool
	}{{0, false}, {time.Minute - 1, false}, {time.Minute, true}, {time.Hour, true}} {
		if got := p.Stable(c.ran); got != c.want {
			t.Errorf("Stable(%s) = %v, want %v", c.ran, got, c.want)
		}
	}
	if (backoff.Policy{}).Stable(time.Hour) {
		t.Error("StableAfter 0 starts the count again")
	}
}
