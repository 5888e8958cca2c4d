//go:build unix

package proc

import (
	"os"
	"syscall"
)

// KillGroup sends SIGKILL to process group pgid: a group troupe started
// and knows to be its own (a Cmd's, an adopted server's checked by its
// start time). A group recorded by anyone else goes through KillProven.
// ESRCH (already gone) is the common, fine outcome. Group ids below 2 and
// troupe's own group are never signalled: kill(-1) would reach every
// process troupe may signal.
func KillGroup(pgid int) {
	if !refusedGroup(pgid) {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// TermGroup sends SIGTERM to process group pgid, known only by its id: a
// program a troupe that died left running, adopted by this one. It refuses
// the groups KillGroup refuses.
func TermGroup(pgid int) {
	if !refusedGroup(pgid) {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
	}
}

// refusedGroup reports whether pgid may never be signalled by id: 0 and
// negative ids address the caller's own group or every process, 1 is
// init's (kill(-1) means every process the caller may signal), and the
// caller's own group and pid are its own.
func refusedGroup(pgid int) bool {
	return pgid <= 1 || pgid == os.Getpid() || pgid == syscall.Getpgrp()
}
