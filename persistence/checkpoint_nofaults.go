//go:build !troupe_faults

package persistence

// checkpointFault is nil in a real binary (see checkpoint_faults.go).
func checkpointFault() func() func() { return nil }
