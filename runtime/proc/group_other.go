//go:build !linux

package proc

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Signal sends sig to the command itself: off Linux it leads no group.
func (c *Cmd) Signal(sig syscall.Signal) error {
	if c.Process == nil {
		return errors.New("proc: not started")
	}
	return c.Process.Signal(sig)
}

// Kill kills the command; what it started may survive on these platforms.
func (c *Cmd) Kill() {
	if c.Process != nil {
		_ = c.Process.Kill()
	}
}

// Terminate kills the command at once: without a group to watch there is
// no telling when a graceful exit is complete.
func (c *Cmd) Terminate(time.Duration) { c.Kill() }

// Alive reports whether pid exists, as far as the platform tells.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

// GroupAlive reports whether the group's leader is alive: off Linux there
// is no cheap way to list a group's members.
func GroupAlive(pgid int) bool { return Alive(pgid) }
