package main

import "golang.org/x/sys/unix"

// withoutEcho turns the terminal's echo off until restore, keeping its
// line editing: set before the first prompt is written, so an answer typed
// ahead of the prompt is not shown either (term.ReadPassword turns echo
// off only once it starts reading, after the prompt).
func withoutEcho(fd int) (restore func(), ok bool) {
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, false
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	quiet.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return nil, false
	}
	return func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, old) }, true
}
