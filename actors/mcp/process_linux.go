//go:build linux

package mcp

import (
	"os/exec"
	"syscall"
)

// isolate runs a stdio server in a new session, and so in its own process
// group, so everything it spawns can be killed together; a new session also
// detaches it from the runtime's terminal, so a server that prompts fails
// instead of stopping on SIGTTIN. Pdeathsig kills it if the runtime dies.
// Pdeathsig fires when the forking OS thread exits, which in Go happens only
// for a goroutine that locked its thread, and exec never locks.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills what is left of a stdio server's process group after the
// server itself exited or was killed: helpers it spawned would otherwise
// outlive the session.
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // ESRCH: nothing left
}
