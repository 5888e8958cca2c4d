// Command benchab runs one of the scale benchmarks on two builds of troupe
// in alternating runs on this machine (base, head, head, base, …) and prints, for each N, every figure
// of both: the base's median and range beside the head's, and the change.
// The base is a revision (default HEAD~1, the previous commit) checked out
// into a temporary git worktree that is removed afterwards; the head is
// the working tree as it is, uncommitted changes included.
//
//   - -bench scale: testkit/cmd/troupe-scale, built from each side's own
//     tree (it links the runtime it measures), run as `troupe-scale -header
//     -n N`; its table row is read by column name, so a column one side
//     does not print is "—" on that side.
//   - -bench daemon-scale: BenchmarkDaemonScale (cmd/troupe), built once
//     from the head's tree and run against each side's troupe binary as
//     the daemon (TROUPE_BENCH_DAEMON): the same benchmark code measures
//     both daemons.
//
// Usage:
//
//	benchab -bench scale|daemon-scale [-base REV] [-rounds 3] [-n "100 1000 10000"] [-repo DIR]
//
// `make bench-scale` and `make bench-daemon-scale` run it (BASE, ROUNDS and
// SCALE_N override the defaults). Progress goes to stderr, the tables to
// stdout.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchab:", err)
		os.Exit(1)
	}
}
