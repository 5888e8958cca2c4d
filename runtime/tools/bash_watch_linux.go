//go:build linux

package tools

import (
	"fmt"
	"os"
	"os/exec"
)

// watchPrelude is the script the shell runs first. It forks a watcher into
// the shell's own process group that blocks reading fd 3, then execs the
// shell again on the command: the same pid, so the same process group, exit
// status and signal handling as running the command directly (a foreground
// command, unlike a background job, keeps SIGINT and SIGQUIT). troupe holds
// the pipe's only write end. When the call ends troupe writes a line and the
// watcher exits; when troupe dies, even by SIGKILL, the kernel closes the
// write end, the read fails, and the watcher kills the whole group.
// Pdeathsig alone only reaches the shell, never what the shell started.
// The watcher's output goes to /dev/null so that it never holds the output
// pipe open; `wait` in the command does not wait for it (not its job).
const watchPrelude = `{ read -r line <&3 || kill -9 0; } >/dev/null 2>&1 & exec "$0" -c "$1" 3<&-`

// deathWatch is troupe's end of one command's watcher pipe.
type deathWatch struct{ r, w *os.File }

// shellCommand runs command in shell under a watcher that kills the
// command's process group if troupe dies.
func shellCommand(shell, command string) (*exec.Cmd, *deathWatch, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("watcher pipe: %w", err)
	}
	cmd := exec.Command(shell, "-c", watchPrelude, shell, command)
	cmd.ExtraFiles = []*os.File{r} // fd 3 in the shell only; w stays close-on-exec
	return cmd, &deathWatch{r: r, w: w}, nil
}

// started drops troupe's copy of the read end once the shell has its own
// (or failed to start).
func (d *deathWatch) started() { _ = d.r.Close() }

// release tells the watcher the call is over, so it exits without killing.
// The write fails harmlessly when the watcher is gone (a cancel killed it).
func (d *deathWatch) release() {
	_, _ = d.w.Write([]byte("\n"))
	_ = d.w.Close()
}
