package testkit

import (
	"reflect"
	"testing"
	"time"
)

// NoError fails the test now if err is not nil.
func NoError(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// Equal fails the test now if got != want.
func Equal[T comparable](t testing.TB, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// DeepEqual fails the test now unless got and want are deeply equal.
func DeepEqual(t testing.TB, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

// ChanRead reads one value from ch or fails the test after timeout.
func ChanRead[T any](t testing.TB, ch <-chan T, timeout time.Duration) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(timeout):
		t.Fatalf("nothing read from channel within %s", timeout)
	}
	var zero T
	return zero
}

// Eventually polls cond until it holds or fails the test after timeout.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true within %s", what, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
