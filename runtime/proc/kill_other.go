//go:build !unix

package proc

// KillGroup does nothing here: there are no process groups to kill, and
// tool processes end with their parent's job object or not at all.
func KillGroup(int) {}

// TermGroup does nothing here, as KillGroup.
func TermGroup(int) {}
