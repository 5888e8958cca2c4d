package daemon

import (
	"testing"
	"time"
)

// Failures count per address, within the window only.
func TestLoginLimiterWindow(t *testing.T) {
	l := newLoginLimiter()
	t0 := time.Unix(1000, 0)
	for i := range loginFailures {
		if l.blocked("a", t0) {
			t.Fatalf("blocked after %d failures", i)
		}
		l.fail("a", t0.Add(time.Duration(i)*time.Second))
	}
	if !l.blocked("a", t0.Add(10*time.Second)) {
		t.Fatal("not blocked after the allowed failures")
	}
	if l.blocked("b", t0.Add(10*time.Second)) {
		t.Fatal("another address is blocked")
	}
	// The first failure leaves the window: one more try is allowed.
	if l.blocked("a", t0.Add(loginWindow+time.Second/2)) {
		t.Fatal("still blocked once a failure left the window")
	}
	if l.blocked("a", t0.Add(2*loginWindow)) || len(l.failures) != 0 {
		t.Fatalf("old failures kept: %v", l.failures)
	}
}

// Expired session tokens are refused and forgotten.
func TestSessionTokensExpire(t *testing.T) {
	a := NewAuth(t.TempDir(), "service")
	now := time.Unix(1000, 0)
	a.now = func() time.Time { return now }
	tok, rec := a.mint("x", time.Minute)
	if id, ok := a.check(tok); !ok || id != rec.id {
		t.Fatalf("fresh token refused")
	}
	if _, ok := a.check("service"); !ok {
		t.Fatal("service token refused")
	}
	now = now.Add(time.Minute + time.Second)
	if _, ok := a.check(tok); ok {
		t.Fatal("expired token accepted")
	}
	if len(a.list()) != 0 {
		t.Fatal("expired token listed")
	}
}
