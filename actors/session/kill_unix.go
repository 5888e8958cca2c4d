//go:build unix

package session

import "syscall"

// killGroup kills a tool call's process group left over from a crash. Tool
// groups are sessions of their own (setsid), so the group id is the
// leader's pid; ESRCH (already gone) is the common, fine outcome.
func killGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}
