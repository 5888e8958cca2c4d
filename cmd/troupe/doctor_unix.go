//go:build unix

package main

import "golang.org/x/sys/unix"

// writable asks the system whether this user may write in dir, without
// writing anything (the doctor changes nothing).
func writable(dir string) error {
	return unix.Access(dir, unix.W_OK|unix.X_OK)
}
