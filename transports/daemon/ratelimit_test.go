package daemon

import (
	"testing"
	"time"
)

// Checks under way count as failures until they end: five reserved at
// once leave none for a sixth, from any address; a right password gives
// its slot back; failures leave the window after a minute.
func TestLoginLimiterReservesBeforeTheCheck(t *testing.T) {
	l := newLoginLimiter()
	t0 := time.Unix(1000, 0)
	var dones []func(bool, time.Time)
	for i := range loginChecks {
		done, _, ok, _ := l.reserve(t0)
		if !ok {
			t.Fatalf("check %d refused", i+1)
		}
		dones = append(dones, done)
	}
	if _, _, ok, _ := l.reserve(t0); ok {
		t.Fatal("a sixth check started while five were under way")
	}
	dones[0](true, t0) // the right password: its slot is free again
	done, _, ok, _ := l.reserve(t0)
	if !ok {
		t.Fatal("a right password's slot was not given back")
	}
	done(false, t0.Add(time.Second))
	for _, d := range dones[1:] {
		d(false, t0.Add(time.Second))
		d(false, t0.Add(time.Second)) // a second call counts nothing
	}
	if full, wait := l.full(t0.Add(10 * time.Second)); !full || wait != loginWindow-9*time.Second {
		t.Fatalf("full %v, wait %v after five failures", full, wait)
	}
	if full, _ := l.full(t0.Add(time.Second + loginWindow)); full {
		t.Fatal("still full once the failures left the window")
	}
	if len(l.failures) != 0 {
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
