//go:build linux

package proc_test

import (
	"os/exec"
	"testing"

	"github.com/troupehq/troupe/runtime/proc"
)

// BenchmarkStartWait compares running `true` through a Cmd (a shell in
// front that forks the death watcher, then execs) with plain exec.
func BenchmarkStartWait(b *testing.B) {
	b.Run("exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("proc", func(b *testing.B) {
		for b.Loop() {
			cmd := proc.Command("true")
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
			cmd.Release()
		}
	})
}
