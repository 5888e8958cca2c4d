//go:build !troupe_pprof

package main

// profiling does nothing in a real binary (see profile.go).
func profiling() (stop func()) { return func() {} }
