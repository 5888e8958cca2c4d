// Package pidfile is the daemon's pid file: the pid written under an
// exclusive flock the process holds while it lives. Once the daemon
// listens, the file says where too, as the JSON record Hydra's clients
// discover a daemon by ({pid, host, port, loopbackPort, startedAt}); a
// bare pid, as older troupes wrote, is still read. The lock, not the
// pid, says whether the process runs: the kernel drops it when the
// process dies however it dies, so a stale file (after kill -9) is told
// from a live one without guessing from /proc, and a reused pid never
// passes for the daemon.
package pidfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// HeldError is Acquire finding another live process holding the file.
type HeldError struct {
	Path string
	PID  int // 0 while the holder has not written it yet
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("another process (pid %d) holds %s", e.PID, e.Path)
}

// Lock is a held pid file.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes path for this process and writes its pid there.
func Acquire(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open pid file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := readPID(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &HeldError{Path: path, PID: pid}
		}
		return nil, fmt.Errorf("lock pid file: %w", err)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("write pid file: %w", err)
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil { // Describe says more once it can
		f.Close()
		return nil, fmt.Errorf("write pid file: %w", err)
	}
	return &Lock{f: f, path: path}, nil
}

// Info is what the file says of a listening daemon, in Hydra's
// discovery record's shape (hydra-acp's daemon.pid).
type Info struct {
	PID          int    `json:"pid"`
	Host         string `json:"host"`         // the address it was asked to bind
	Port         int    `json:"port"`         // the port it listens on
	LoopbackPort int    `json:"loopbackPort"` // where a local client dials it over plain HTTP
	StartedAt    string `json:"startedAt"`    // RFC 3339
	// Args are the flags the daemon was started with ("--name=value"),
	// secrets left out: what `troupe daemon restart` starts it with again.
	// Withheld names the flags given but not recorded (an API key), for
	// the restart to say they must be given again.
	Args     []string `json:"args,omitempty"`
	Withheld []string `json:"withheld,omitempty"`
}

// Describe rewrites the held file as info. It is written in place (the
// lock is on this file, so it cannot be replaced by a rename).
func (l *Lock) Describe(info Info) error {
	b, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("describe pid file: %w", err)
	}
	b = append(b, '\n')
	if _, err := l.f.WriteAt(b, 0); err != nil {
		return fmt.Errorf("describe pid file: %w", err)
	}
	if err := l.f.Truncate(int64(len(b))); err != nil {
		return fmt.Errorf("describe pid file: %w", err)
	}
	return nil
}

// Release removes the file, then lets the lock go.
func (l *Lock) Release() error {
	err := os.Remove(l.path)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("remove pid file: %w", err)
	}
	return nil
}

// Read returns the pid written in path and whether a live process holds
// it; a missing file is pid 0, not held, and no error.
func Read(path string) (pid int, held bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read pid file: %w", err)
	}
	defer f.Close()
	pid, _ = readPID(f)
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	switch {
	case err == nil:
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return pid, false, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return pid, true, nil
	default:
		return pid, false, fmt.Errorf("check pid file lock: %w", err)
	}
}

// ReadInfo returns the record in path and whether a live process holds
// it; a bare pid (an older troupe's, or a daemon not yet listening) is
// an Info with only PID set; a missing file is the zero Info.
func ReadInfo(path string) (info Info, held bool, err error) {
	pid, held, err := Read(path)
	if err != nil || pid == 0 {
		return Info{}, held, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Info{PID: pid}, held, fmt.Errorf("read pid file: %w", err)
	}
	if s := strings.TrimSpace(string(b)); strings.HasPrefix(s, "{") {
		if err := json.Unmarshal([]byte(s), &info); err != nil {
			return Info{PID: pid}, held, fmt.Errorf("read pid file: %w", err)
		}
		return info, held, nil
	}
	return Info{PID: pid}, held, nil
}

// readPID reads a bare pid or a record's.
func readPID(f *os.File) (int, error) {
	b := make([]byte, 4096)
	n, err := f.ReadAt(b, 0)
	if n == 0 {
		return 0, err
	}
	s := strings.TrimSpace(string(b[:n]))
	if strings.HasPrefix(s, "{") {
		var info Info
		if err := json.Unmarshal([]byte(s), &info); err != nil {
			return 0, fmt.Errorf("read pid file: %w", err)
		}
		return info.PID, nil
	}
	return strconv.Atoi(s)
}
