//go:build !linux

package tools

import (
	"os/exec"
	"time"
)

// isolateProcess is a no-op off Linux: process groups and parent-death
// signals are Linux-specific here, so only the shell itself can be killed.
func isolateProcess(*exec.Cmd) {}

// killTree kills the shell; its children may survive on these platforms.
func killTree(cmd *exec.Cmd, _ time.Duration) {
	_ = cmd.Process.Kill()
}

// deathWatch has nothing to watch off Linux: the shell runs directly, and
// what it started may outlive troupe.
type deathWatch struct{}

func shellCommand(shell, command string) (*exec.Cmd, *deathWatch, error) {
	return exec.Command(shell, "-c", command), &deathWatch{}, nil
}

func (*deathWatch) started() {}
func (*deathWatch) release() {}
