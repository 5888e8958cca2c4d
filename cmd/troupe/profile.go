//go:build troupe_pprof

package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
)

// profiling starts a CPU profile into $TROUPE_CPUPROFILE when it is set;
// SIGUSR2 (or the returned stop) ends it and writes a heap profile into
// $TROUPE_MEMPROFILE: the benchmarks' way to profile a real daemon
// (BenchmarkDaemonScale with TROUPE_BENCH_PPROF). Only a binary built
// with -tags troupe_pprof has it; the real one links no runtime/pprof
// handler at all.
func profiling() (stop func()) {
	cpu, mem := os.Getenv("TROUPE_CPUPROFILE"), os.Getenv("TROUPE_MEMPROFILE")
	if cpu == "" && mem == "" {
		return func() {}
	}
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			fmt.Fprintln(os.Stderr, "cpuprofile:", err)
		} else if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "cpuprofile:", err)
		}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGUSR2)
		defer signal.Stop(sig)
		select {
		case <-sig:
		case <-done:
		}
		pprof.StopCPUProfile()
		if mem == "" {
			return
		}
		if err := writeHeap(mem); err != nil {
			fmt.Fprintln(os.Stderr, "memprofile:", err)
		}
	}()
	return func() { close(done); <-finished }
}

// writeHeap writes the heap profile beside path and renames it there, so
// a reader waiting for path never sees it half written.
func writeHeap(path string) error {
	runtime.GC()
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}
