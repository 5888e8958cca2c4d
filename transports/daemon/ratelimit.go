package daemon

import (
	"sync"
	"time"
)

// Failed logins allowed per address within loginWindow; past that the
// address is answered 429 until its oldest failure leaves the window.
const (
	loginFailures = 5
	loginWindow   = time.Minute
)

type loginLimiter struct {
	mu       sync.Mutex
	failures map[string][]time.Time
}

func newLoginLimiter() *loginLimiter {
	return &loginLimiter{failures: map[string][]time.Time{}}
}

// blocked reports whether addr used up its failures, and forgets those
// that left the window.
func (l *loginLimiter) blocked(addr string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	recent := l.failures[addr][:0]
	for _, t := range l.failures[addr] {
		if now.Sub(t) < loginWindow {
			recent = append(recent, t)
		}
	}
	if len(recent) == 0 {
		delete(l.failures, addr)
		return false
	}
	l.failures[addr] = recent
	return len(recent) >= loginFailures
}

func (l *loginLimiter) fail(addr string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failures[addr] = append(l.failures[addr], now)
}
