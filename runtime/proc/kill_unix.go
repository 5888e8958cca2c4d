//go:build unix

package proc

import "syscall"

// KillGroup sends SIGKILL to process group pgid: what a tool call left
// running when troupe crashed, say, found by a recorded group id. ESRCH
// (already gone) is the common, fine outcome.
func KillGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// TermGroup sends SIGTERM to process group pgid, known only by its id: a
// program a troupe that died left running, adopted by this one.
func TermGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
	}
}
