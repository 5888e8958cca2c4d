//go:build linux

package proc

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"
)

// pollInterval is how often Terminate looks whether the group is gone.
const pollInterval = 20 * time.Millisecond

// Signal sends sig to the command's whole process group.
func (c *Cmd) Signal(sig syscall.Signal) error {
	if c.Process == nil {
		return errors.New("proc: not started")
	}
	return syscall.Kill(-c.PGID(), sig)
}

// Kill sends SIGKILL to the command's whole process group; ESRCH (nothing
// left) is not an error.
func (c *Cmd) Kill() {
	if c.Process != nil {
		KillGroup(c.PGID())
	}
	c.dropWatch()
}

// Terminate sends SIGTERM to the command's process group, gives its members
// grace to exit cleanly, then sends SIGKILL to whatever remains. It blocks
// for up to grace.
func (c *Cmd) Terminate(grace time.Duration) {
	if c.Process == nil {
		return
	}
	defer c.dropWatch()
	pgid := c.PGID()
	if err := syscall.Kill(-pgid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !GroupAlive(pgid) {
			return
		}
		time.Sleep(pollInterval)
	}
	KillGroup(pgid)
}

// Alive reports whether pid exists and is not a zombie.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	state, _, ok := procStat(pid)
	return ok && state != 'Z'
}

// GroupAlive reports whether group pgid has a member that is not a zombie.
// kill(-pgid, 0) alone is not enough: killed orphans stay zombies until init
// reaps them, which in some containers takes seconds, and waiting for that
// would turn every kill into a full grace period.
func GroupAlive(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, pgrp, ok := procStat(pid); ok && pgrp == pgid && state != 'Z' {
			return true
		}
	}
	return false
}

// procStat reads a process's state letter and process group.
func procStat(pid int) (state byte, pgrp int, ok bool) {
	st, ok := readStat(pid)
	return st.state, st.pgrp, ok
}
