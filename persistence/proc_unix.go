//go:build unix && !linux

package persistence

import (
	"errors"
	"syscall"
)

func procStart(int) int64 { return 0 }

// processAlive asks the kernel whether pid exists; without /proc a reused
// pid cannot be told apart, so the lease then waits for its TTL.
func processAlive(pid int, _ int64) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
