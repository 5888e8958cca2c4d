//go:build linux

package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
)

// shell runs watchPrelude; any POSIX sh will do.
const shell = "/bin/sh"

// watchPrelude is the script the shell runs first. It forks a watcher into
// the shell's own process group that blocks reading fd 3, then execs the
// command: the same pid, so the same process group, exit status and signal
// handling as running the command directly. troupe holds the pipe's only
// write end. Release writes a line and the watcher exits; when troupe dies,
// even by SIGKILL, the kernel closes the write end, the read fails, and the
// watcher kills the whole group. Pdeathsig alone reaches only the command,
// never what it started. The watcher's output goes to /dev/null so that it
// never holds an output pipe open, and its stdin is /dev/null as for any
// background job of a non-interactive shell.
const watchPrelude = `{ read -r line <&3 || kill -9 0; } >/dev/null 2>&1 & exec "$0" "$@" 3<&-`

// watch is troupe's end of the watcher pipe, held as a bare descriptor on
// purpose: an *os.File carries a finalizer, and once the Cmd is
// unreachable (a caller in Wait holds only the embedded exec.Cmd) the
// garbage collector would close it, and the watcher would kill a command
// that was running fine. The end is closed only by Release, Kill or
// Terminate, or by the kernel when troupe dies. It is stored plus one, so
// that zero means none, and taken with a swap: Kill from one goroutine and
// Release from another close it once, never a descriptor reused since.
type watch struct{ fd atomic.Int32 }

// take returns the descriptor and forgets it, or false when there is none.
func (w *watch) take() (int, bool) {
	v := w.fd.Swap(0)
	return int(v) - 1, v != 0
}

// Start starts the command in a new session under the death watcher.
// Pdeathsig kills the command if troupe dies; it fires when the forking OS
// thread exits, which for Go means only when a goroutine that locked its
// thread exits, and exec never locks. After Start, Path and Args are those
// of the shell that became the command.
func (c *Cmd) Start() error {
	if c.Err != nil {
		return c.Err // exec.Command's lookup failed; exec's Start says the same
	}
	if c.Process != nil {
		return errors.New("proc: already started")
	}
	if len(c.ExtraFiles) > 0 {
		return errors.New("proc: ExtraFiles are not supported; fd 3 is the watcher's")
	}
	if err := checkExecutable(c.Path, c.Dir); err != nil {
		return err
	}
	c.markEnv()
	if c.Outlive {
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		return c.Cmd.Start()
	}
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return fmt.Errorf("watcher pipe: %w", err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "watcher"), fds[1]
	path := c.Path
	c.Args = append([]string{shell, "-c", watchPrelude, path}, c.Args[1:]...)
	c.Path = shell
	c.ExtraFiles = []*os.File{r} // fd 3 in the shell only; w stays close-on-exec
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	err := c.Cmd.Start()
	_ = r.Close() // the shell has its own copy, or failed to start
	if err != nil {
		_ = syscall.Close(w)
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == shell {
			pe.Path = path // name the command, not the shell in front of it
		}
		return err
	}
	c.watch.fd.Store(int32(w) + 1)
	return nil
}

// checkExecutable fails the way exec would for a command the shell cannot
// exec, so that a missing program is an error from Start, as with exec,
// rather than an exit status of 127 from the shell.
func checkExecutable(path, dir string) error {
	p := path
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		var errno syscall.Errno
		if !errors.As(err, &errno) {
			errno = syscall.ENOENT
		}
		return &fs.PathError{Op: "fork/exec", Path: path, Err: errno}
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return &fs.PathError{Op: "fork/exec", Path: path, Err: syscall.EACCES}
	}
	return nil
}

// Release tells the watcher the command is no longer troupe's: it exits
// without killing, and what the group still runs may outlive troupe. The
// write fails harmlessly when the watcher is gone (the group was killed).
// Safe to call more than once, and before a failed or no Start.
func (c *Cmd) Release() {
	fd, ok := c.watch.take()
	if !ok {
		return
	}
	_, _ = syscall.Write(fd, []byte("\n"))
	_ = syscall.Close(fd)
}

// dropWatch closes troupe's end of the watcher pipe: a watcher still
// reading kills its group, which Kill and Terminate have just done anyway.
func (c *Cmd) dropWatch() {
	if fd, ok := c.watch.take(); ok {
		_ = syscall.Close(fd)
	}
}
