//go:build !unix

package main

// writable is not judged where the system offers no access(2): a home
// troupe cannot write fails its next writing command with its own error.
func writable(string) error { return nil }
