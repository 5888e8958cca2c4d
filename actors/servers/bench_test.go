package servers_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors/servers"
)

// fakeLoad is the fake llama-server's load time in the benchmarks.
const fakeLoad = 100 * time.Millisecond

// BenchmarkServerStartToStarted reports how long after the fake's own
// load time Start is answered: process start, the poll that sees the 200,
// the answer (aim: under 20 ms).
func BenchmarkServerStartToStarted(b *testing.B) {
	h := newHarness(b, servers.Options{})
	cfg := config(b, "--fake-load", fakeLoad.String())
	var over time.Duration
	for i := 0; b.Loop(); i++ {
		begun := time.Now()
		got := h.start("bench", cfg)
		if got.Err != nil {
			b.Fatal(got.Err)
		}
		over += time.Since(begun) - fakeLoad
		if st := h.stop("bench", 5*time.Second); st != servers.StatusStopped {
			b.Fatalf("stop: %s", st)
		}
	}
	b.ReportMetric(float64(over.Microseconds())/1000/float64(b.N), "ms-over-load/start")
}

// BenchmarkRestartDelays kills a started server four times and reports,
// for each restart, the time from the kill to the new run's "started",
// less the fake's load: the backoff (100, 200, 400, 800 ms) plus overhead.
func BenchmarkRestartDelays(b *testing.B) {
	for b.Loop() {
		h := newHarness(b, servers.Options{Backoff: 100 * time.Millisecond})
		got := h.start("crashy", config(b, "--fake-load", fakeLoad.String()))
		if got.Err != nil {
			b.Fatal(got.Err)
		}
		pid := got.Info.PID
		for round := 1; round <= 4; round++ {
			killed := time.Now()
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				b.Fatal(err)
			}
			for len(h.ev.of("crashy", servers.StatusStarted)) < round+1 {
				time.Sleep(time.Millisecond)
			}
			took := time.Since(killed) - fakeLoad
			started := h.ev.of("crashy", servers.StatusStarted)
			pid = started[len(started)-1].PID
			b.ReportMetric(float64(took.Microseconds())/1000, fmt.Sprintf("ms-restart%d", round))
		}
		_ = h.sys.Root.StopFuture(h.sup).Wait()
	}
}
