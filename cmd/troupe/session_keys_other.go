//go:build !linux

package main

import "io"

// openKeys reads stdin as it is where troupe does not set terminal modes.
func openKeys(stdin io.Reader, _ io.Writer) (io.Reader, func()) { return stdin, func() {} }
