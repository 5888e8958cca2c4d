package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// config is one invocation's flags.
type config struct {
	bench  *benchmark
	base   string
	rounds int
	ns     []int
	repo   string
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("benchab", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("bench", "", "the benchmark: scale or daemon-scale")
	base := fs.String("base", "HEAD~1", "the base revision, measured against the working tree")
	rounds := fs.Int("rounds", 3, "runs of each side per N, alternating")
	ns := fs.String("n", "100 1000 10000", "the session counts, space-separated")
	repo := fs.String("repo", ".", "the repository (its working tree is the head)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	cfg := config{base: *base, rounds: *rounds, repo: *repo}
	var ok bool
	if cfg.bench, ok = benchmarks[*name]; !ok {
		return config{}, fmt.Errorf("-bench %q: want scale or daemon-scale", *name)
	}
	if cfg.rounds < 1 {
		return config{}, errors.New("-rounds must be at least 1")
	}
	for f := range strings.FieldsSeq(*ns) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return config{}, fmt.Errorf("-n: %q is not a positive count", f)
		}
		cfg.ns = append(cfg.ns, n)
	}
	if len(cfg.ns) == 0 {
		return config{}, errors.New("-n names no session count")
	}
	return cfg, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "benchab-")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	base, head, err := checkout(ctx, cfg.repo, cfg.base, tmp)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := base.remove(); rerr != nil && err == nil {
			err = rerr
		}
	}()
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "benchab: "+format+"\n", a...) }
	logf("building %s (base) and %s (head) for %s", base.label, head.label, cfg.bench.name)
	sides, err := cfg.bench.build(ctx, base, head, tmp)
	if err != nil {
		return err
	}
	for _, n := range cfg.ns {
		load0 := loadAverage()
		runs := [2][]figures{}
		for r := range cfg.rounds {
			for _, i := range order(r) {
				s := sides[i]
				logf("N=%d round %d/%d: %s", n, r+1, cfg.rounds, s.tree.label)
				start := time.Now()
				f, err := s.run(ctx, n)
				if err != nil {
					return fmt.Errorf("N=%d, %s: %w", n, s.tree.label, err)
				}
				logf("  %.1f s", time.Since(start).Seconds())
				runs[i] = append(runs[i], f)
			}
		}
		t := table{
			title: fmt.Sprintf("%s, N = %s: %d rounds, %s and %s alternating (ABBA); load average %s → %s",
				cfg.bench.name, grouped(strconv.Itoa(n)), cfg.rounds, base.label, head.label, load0, loadAverage()),
			base: base.label, head: head.label,
			rows: compare(cfg.bench.figures, runs[0], runs[1]),
		}
		if _, err := io.WriteString(stdout, t.render()+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// order is which side runs first in round r: base then head, then head
// then base, and so on (ABBA), so neither side always runs in the wake of
// the other's run (its files being removed, its memory being returned).
func order(r int) [2]int {
	if r%2 == 1 {
		return [2]int{1, 0}
	}
	return [2]int{0, 1}
}

// loadAverage is the machine's one-minute load average, or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}
