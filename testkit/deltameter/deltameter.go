// Package deltameter measures a streaming benchmark per delta (wall time,
// CPU time, allocations), for every provider's per-delta benchmark alike.
// It imports nothing of troupe, so any package's internal tests may use it.
package deltameter

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// Meter measures a streaming benchmark per delta: the process's CPU
// time (the benchmark's HTTP server's too, when it runs in process) and
// its allocations, which a busy machine's load does not inflate as it
// does the wall time. Every provider's per-delta benchmark reports the
// same three figures, so make bench prints them side by side.
type Meter struct {
	cpu     time.Duration
	mallocs uint64
}

// Start starts measuring; call it after the benchmark's setup.
func Start() Meter { return Meter{cpu: processCPU(), mallocs: mallocs()} }

// Report gives the wall time, the CPU time and the allocations per delta
// of the n deltas streamed since the meter started.
func (m Meter) Report(b *testing.B, n int) {
	if n == 0 {
		b.Fatal("no delta streamed")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/delta")
	b.ReportMetric(float64((processCPU()-m.cpu).Nanoseconds())/float64(n), "cpu-ns/delta")
	b.ReportMetric(float64(mallocs()-m.mallocs)/float64(n), "allocs/delta")
}

func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// processCPU is the user and system time the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
