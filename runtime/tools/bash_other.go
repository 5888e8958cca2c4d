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
