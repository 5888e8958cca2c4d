package session

import "testing"

// TestDropReleasesDrained: a drained queue is nil, not an empty window on
// the old array, which would keep its events' payloads alive in an idle
// session.
func TestDropReleasesDrained(t *testing.T) {
	xs := []int{1, 2, 3}
	if got := drop(xs, 2); len(got) != 1 || got[0] != 3 {
		t.Fatalf("drop 2 of 3: %v", got)
	}
	if got := drop(xs, 3); got != nil {
		t.Fatalf("drop all: %v (cap %d), want nil", got, cap(got))
	}
}
