// Package logfile is a log file rotated by size, as a detached `troupe
// daemon` keeps it: when the next write would pass the limit the file
// becomes FILE.1 (FILE.1 becomes FILE.2, …, the oldest beyond Keep is
// removed) and a new FILE is opened. The process rotates it itself, so no
// logrotate set-up is needed. With Redirect, each new file is also made
// the process's stdout and stderr (dup3), so what bypasses the logger (a
// panic's trace, the Go runtime's fatal errors) lands in the current file
// rather than in a rotated one.
//
// A small writer of our own rather than lumberjack: lumberjack cannot tell
// its caller that it reopened the file, which the redirect needs.
//
// It imports no troupe package.
package logfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// Options configure a File.
type Options struct {
	MaxBytes int64 // rotate before the file passes this; 0: 10 MiB
	Keep     int   // rotated files kept; 0: 3
	Redirect bool  // make each file the process's stdout and stderr
}

// File is the log file; its methods may be called from any goroutine.
type File struct {
	path string
	opts Options

	mu   sync.Mutex
	f    *os.File
	size int64
}

// Open opens (appending to) or creates path.
func Open(path string, opts Options) (*File, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 10 << 20
	}
	if opts.Keep <= 0 {
		opts.Keep = 3
	}
	l := &File{path: path, opts: opts}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *File) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open log file: %w", err)
	}
	if l.opts.Redirect {
		for _, fd := range []int{1, 2} {
			if err := syscall.Dup3(int(f.Fd()), fd, 0); err != nil {
				f.Close()
				return fmt.Errorf("log file as fd %d: %w", fd, err)
			}
		}
	}
	l.f, l.size = f, fi.Size()
	return nil
}

// Write appends p, rotating first when p would take the file past the
// limit (a file holding nothing yet takes p whatever its size).
func (l *File) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, errors.New("log file is closed")
	}
	if l.size > 0 && l.size+int64(len(p)) > l.opts.MaxBytes {
		if err := l.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// rotate shifts FILE.i to FILE.i+1, FILE to FILE.1, and opens a new FILE.
func (l *File) rotate() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("rotate log file: %w", err)
	}
	l.f = nil
	_ = os.Remove(l.name(l.opts.Keep))
	for i := l.opts.Keep - 1; i >= 1; i-- {
		if err := os.Rename(l.name(i), l.name(i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("rotate log file: %w", err)
		}
	}
	if err := os.Rename(l.path, l.name(1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("rotate log file: %w", err)
	}
	return l.open()
}

func (l *File) name(i int) string { return l.path + "." + strconv.Itoa(i) }

// Close closes the file; later writes fail.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
