package daemon

import (
	"sync"
	"time"
)

// At most loginChecks password checks may be failing or under way within
// loginWindow; past that every login is answered 429, the right password
// too, until the oldest failure leaves the window.
//
// The budget is the account's (the daemon has one master password), not
// an address's: a local attacker has every 127.x address to spread over,
// and a check takes ~100 ms of bcrypt, so counting failures per address
// after each compare let 40 concurrent guesses through. A check reserves
// its slot before the compare and gives it back only when the password
// was right. The price is that anyone who can reach the port can keep
// password logins refused by failing five times a minute; the service
// token in $TROUPE_HOME/auth-token and the login tokens already minted
// keep working, so the owner is never locked out of the daemon.
const (
	loginChecks = 5
	loginWindow = time.Minute
)

type loginLimiter struct {
	mu       sync.Mutex
	failures []time.Time // within the window
	inFlight int
	checked  int // checks ever begun; for the log line
}

func newLoginLimiter() *loginLimiter {
	return &loginLimiter{}
}

// pruneLocked forgets the failures that left the window.
func (l *loginLimiter) pruneLocked(now time.Time) {
	kept := l.failures[:0]
	for _, t := range l.failures {
		if now.Sub(t) < loginWindow {
			kept = append(kept, t)
		}
	}
	l.failures = kept
}

// full reports whether no check may start now, and if so how long until
// one may (at least a second, for Retry-After).
func (l *loginLimiter) full(now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fullLocked(now)
}

func (l *loginLimiter) fullLocked(now time.Time) (bool, time.Duration) {
	l.pruneLocked(now)
	if len(l.failures)+l.inFlight < loginChecks {
		return false, 0
	}
	wait := time.Second
	if len(l.failures) > 0 {
		oldest := l.failures[0]
		for _, t := range l.failures {
			if t.Before(oldest) {
				oldest = t
			}
		}
		wait = max(wait, loginWindow-now.Sub(oldest))
	}
	return true, wait
}

// reserve takes a slot for one password check; done gives it back,
// recording a failure at when unless the password was right. ok is false
// (and done nil) when the budget is used up.
func (l *loginLimiter) reserve(now time.Time) (done func(right bool, when time.Time), n int, ok bool, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if full, wait := l.fullLocked(now); full {
		return nil, 0, false, wait
	}
	l.inFlight++
	l.checked++
	var once sync.Once
	return func(right bool, when time.Time) {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.inFlight--
			if !right {
				l.failures = append(l.failures, when)
			}
		})
	}, l.checked, true, 0
}
