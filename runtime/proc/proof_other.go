//go:build !linux

package proc

import "fmt"

// Proof is the zero Proof off Linux: without /proc there is no start time
// or environment to check.
func (c *Cmd) Proof() Proof { return Proof{} }

// KillProven refuses every group off Linux: nothing there proves a pid
// still is the command troupe started.
func KillProven(p Proof, _ string) error {
	return fmt.Errorf("%w: group %d: no proof on this platform", ErrUnproven, p.PID)
}
