//go:build !unix

package session

// killGroup has no process groups to kill here; tool processes end with
// their parent's job object or not at all.
func killGroup(int) {}
