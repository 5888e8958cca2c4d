//go:build unix

package daemon

import (
	"fmt"
	"syscall"
)

// RaiseFileLimit raises the soft limit on open descriptors to the hard
// one and returns the limit in force: every connection, pending or not,
// costs one, and the store needs its own whatever the clients do. (Go
// raises it at start too; this says so and is what maxPending reads.)
func RaiseFileLimit() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("read the open-file limit: %w", err)
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return 0, fmt.Errorf("raise the open-file limit to %d: %w", lim.Max, err)
		}
	}
	return lim.Cur, nil
}

// fileLimit is the soft limit on open descriptors; 0 when unknown.
func fileLimit() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	return lim.Cur
}
