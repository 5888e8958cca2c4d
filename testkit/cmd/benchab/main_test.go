package main

import (
	"io"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestRunComparesTwoRevisions runs the runner end to end as make
// bench-scale does, at a tiny N: the base is HEAD, checked out into a
// temporary worktree, the head this working tree. It prints one table
// whose figures each side measured have a median and a range on both
// sides, and leaves no worktree behind.
//
// It builds troupe-scale twice (with -trimpath, so the second build reuses
// the first's cache where the trees agree): 15 s on a warm build cache,
// minutes on a cold one, so -short leaves it out.
func TestRunComparesTwoRevisions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds troupe-scale at two revisions")
	}
	if err := exec.Command("git", "rev-parse", "--verify", "HEAD").Run(); err != nil {
		t.Skipf("not in a git checkout with a commit (%v): there is no base revision to build", err)
	}
	var stdout, stderr strings.Builder
	err := run(t.Context(), []string{"-bench", "scale", "-n", "5", "-rounds", "2", "-base", "HEAD"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "scale, N = 5: 2 rounds, ") || strings.Count(out, "| figure |") != 1 {
		t.Fatalf("output:\n%s\nwant one table, of N = 5", out)
	}
	both := regexp.MustCompile(`(?m)^\| (wall|committed events|peak resident memory \(VmHWM\)) \| [0-9.,]+( s| MB)? \([0-9.,]+–[0-9.,]+\) \| [0-9.,]+( s| MB)? \([0-9.,]+–[0-9.,]+\) \| `)
	if n := len(both.FindAllString(out, -1)); n != 3 {
		t.Fatalf("output:\n%s\nwant wall, events and peak with a median and range on both sides", out)
	}
	list, err := exec.Command("git", "worktree", "list", "--porcelain").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(list), "benchab-") {
		t.Fatalf("the base's worktree is left:\n%s", list)
	}
}

// TestFlags: a benchmark benchab does not know, a bad N or no rounds is an
// error before anything is built.
func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-bench", "bogus"},
		{"-bench", "scale", "-n", "100 x"},
		{"-bench", "scale", "-n", " "},
		{"-bench", "scale", "-rounds", "0"},
		{"-bench", "scale", "extra"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	cfg, err := parseFlags([]string{"-bench", "daemon-scale"}, io.Discard)
	if err != nil || cfg.base != "HEAD~1" || cfg.rounds != 3 || len(cfg.ns) != 3 || cfg.bench.name != "daemon-scale" {
		t.Fatalf("defaults %+v, %v", cfg, err)
	}
}

// TestOrderAlternatesWhoGoesFirst: ABBA, so each side runs first as often
// as second over an even number of rounds.
func TestOrderAlternatesWhoGoesFirst(t *testing.T) {
	first := [2]int{}
	for r := range 4 {
		o := order(r)
		if o[0] == o[1] {
			t.Fatalf("round %d runs side %d twice", r, o[0])
		}
		first[o[0]]++
	}
	if first != [2]int{2, 2} {
		t.Fatalf("firsts %v over 4 rounds, want 2 each", first)
	}
}
