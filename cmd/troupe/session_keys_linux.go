package main

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// openKeys makes stdin readable a key at a time and stoppable: on a
// terminal without echo, line editing or signals (Ctrl-C arrives as a
// key), output processing kept; a copy of the descriptor in non-blocking
// mode, so the view's Close can end its read with a deadline. restore
// undoes both.
func openKeys(stdin io.Reader, stderr io.Writer) (io.Reader, func()) {
	f, ok := stdin.(*os.File)
	if !ok {
		return stdin, func() {}
	}
	var undo []func()
	fd := int(f.Fd())
	if old, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
		raw := *old
		raw.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
		raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
		if err := unix.IoctlSetTermios(fd, unix.TCSETS, &raw); err != nil {
			fmt.Fprintf(stderr, "troupe: keys: %v\n", err)
		} else {
			undo = append(undo, func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, old) })
		}
	}
	keys := io.Reader(f)
	if dup, err := unix.Dup(fd); err == nil {
		if unix.SetNonblock(dup, true) == nil {
			kf := os.NewFile(uintptr(dup), "stdin")
			keys = kf
			// O_NONBLOCK belongs to the open file, which the shell shares:
			// it must be blocking again when troupe leaves.
			undo = append(undo, func() {
				_ = unix.SetNonblock(fd, false)
				_ = kf.Close()
			})
		} else {
			_ = unix.Close(dup)
		}
	}
	return keys, func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
}
