package testkit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// ownerFile names the test process a binary directory belongs to.
const ownerFile = "owner.pid"

// binDir makes the directory one test process builds a helper binary
// into, marked with the process's pid, after removing the directories of
// test processes that have ended. go test gives a package no hook at its
// end, so each build clears what finished processes left: without it
// every test run leaves its binaries (40 MB each) in the temp directory.
func binDir(prefix string) (string, error) {
	sweepBinDirs(os.TempDir(), prefix)
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", fmt.Errorf("binary directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		return "", fmt.Errorf("binary directory: %w", err)
	}
	return dir, nil
}

// sweepBinDirs removes the prefix's directories in tmp whose owner has
// ended. A directory without an owner file (another tool's, or one being
// made this instant) is left alone, as is one whose owner still runs.
func sweepBinDirs(tmp, prefix string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, prefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(string(b))
		if err != nil || pid <= 0 || alive(pid) {
			continue
		}
		_ = os.RemoveAll(dir)
	}
}

// alive reports whether a process pid exists (one of another user's
// counts: EPERM).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
