//go:build linux

package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// watch is troupe's end of the watcher pipe.
type watch struct{ w *os.File }

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
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("watcher pipe: %w", err)
	}
	path := c.Path
	c.Args = append([]string{shell, "-c", watchPrelude, path}, c.Args[1:]...)
	c.Path = shell
	c.ExtraFiles = []*os.File{r} // fd 3 in the shell only; w stays close-on-exec
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	err = c.Cmd.Start()
	_ = r.Close() // the shell has its own copy, or failed to start
	if err != nil {
		_ = w.Close()
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == shell {
			pe.Path = path // name the command, not the shell in front of it
		}
		return err
	}
	c.watch.w = w
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
	if c.watch.w == nil {
		return
	}
	_, _ = c.watch.w.Write([]byte("\n"))
	_ = c.watch.w.Close()
	c.watch.w = nil
}
