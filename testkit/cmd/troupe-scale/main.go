// Command troupe-scale runs N concurrent scripted sessions in this one
// process (see package testkit/scale for the shape of work) and prints one
// row of the scale table: N, wall time, committed events/s, CPU time,
// peak resident memory, the heap, resident memory and goroutines per idle
// live session after the runs, and the commit-to-subscriber latency of a
// sample of the deltas while they ran. It exits 1, saying why, when any session's log is
// incomplete. `make bench-scale` runs it once per N so each peak is its own.
//
// Usage:
//
//	troupe-scale [-n 1000] [-prompts 3] [-deltas 50] [-home DIR] [-header] [-cpuprofile FILE] [-memprofile FILE] [-trace FILE]
//
// Without -home the store lives in a temporary directory removed at exit.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
	"time"

	"github.com/lmittmann/tint"

	"github.com/troupehq/troupe/testkit/scale"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "troupe-scale:", err)
		os.Exit(1)
	}
}

// Header is the table's head, printed with -header.
// testkit/cmd/benchab reads the row by these column heads, so a column
// keeps its head and its unit.
const Header = "| sessions | wall | committed events | events/s | CPU | CPU/event | peak RSS (VmHWM) | idle heap/session | idle RSS/session | idle goroutines/session | chunk p50 | chunk p99 | chunks sampled |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|"

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("troupe-scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := scale.Config{}
	fs.IntVar(&cfg.Sessions, "n", 1000, "concurrent sessions")
	fs.IntVar(&cfg.Prompts, "prompts", 3, "prompts per session")
	fs.IntVar(&cfg.Deltas, "deltas", 50, "deltas per answer")
	fs.DurationVar(&cfg.Timeout, "timeout", 10*time.Minute, "bound on the runs")
	home := fs.String("home", "", "data home (default: a temporary directory, removed after)")
	header := fs.Bool("header", false, "print the table's head first")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the runs (not the verification) to this file")
	tracefile := fs.String("trace", "", "write an execution trace of the whole run to this file (go tool trace -pprof=sched|sync|syscall)")
	memprofile := fs.String("memprofile", "", "write a heap profile after the runs to this file")
	verbose := fs.Bool("v", false, "log at info on stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	cfg.Logger = slog.New(tint.NewHandler(stderr, &tint.Options{Level: level, NoColor: true}))
	if *home == "" {
		dir, err := os.MkdirTemp("", "troupe-scale-")
		if err != nil {
			return fmt.Errorf("make home: %w", err)
		}
		defer os.RemoveAll(dir)
		*home = dir
	}
	cfg.Home = *home
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()        // on failure; stopping twice is harmless
		cfg.RunsDone = pprof.StopCPUProfile // the runs alone, not the verification
	}
	if *tracefile != "" {
		f, err := os.Create(*tracefile)
		if err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		defer trace.Stop()
	}
	res, err := scale.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if *memprofile != "" {
		if err := writeHeap(*memprofile); err != nil {
			return err
		}
	}
	if *header {
		fmt.Fprintln(stdout, Header)
	}
	fmt.Fprintf(stdout, "| %d | %.2f s | %d | %.0f | %.2f s | %.1f µs | %.0f MB | %.1f KB | %.1f KB | %.2f | %.0f µs | %.0f µs | %d |\n",
		res.Sessions, res.Wall.Seconds(), res.Events, res.EventsPerSecond(), res.CPU.Seconds(), float64(res.CPUPerEvent().Nanoseconds())/1e3,
		float64(res.PeakRSS)/1e6, res.IdleHeap/1024, res.IdleRSS/1024, res.IdleGoroutines,
		float64(res.ChunkP50.Nanoseconds())/1e3, float64(res.ChunkP99.Nanoseconds())/1e3, res.ChunkSamples)
	return nil
}

func writeHeap(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	return nil
}
