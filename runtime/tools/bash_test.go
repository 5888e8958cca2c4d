package tools

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBashOutputAndExitCode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := run(t, Bash{}, callIn(t, dir, map[string]any{"command": "echo out; echo err >&2; pwd"}))
	requireOK(t, res)
	requireEqual(t, res.Output, "out\nerr\n"+dir+"\n\n[exit code: 0]")
	requireEqual(t, res.Metadata[MetaExitCode].(int), 0)
	requireEqual(t, res.FullOutputPath, "")
}

func TestBashNonZeroExit(t *testing.T) {
	t.Parallel()
	res := run(t, Bash{}, callIn(t, t.TempDir(), map[string]any{"command": "echo failing; exit 3"}))
	requireError(t, res, "failing\n", "[exit code: 3]")
	requireEqual(t, res.Metadata[MetaExitCode].(int), 3)
}

func TestBashNoOutput(t *testing.T) {
	t.Parallel()
	res := run(t, Bash{}, callIn(t, t.TempDir(), map[string]any{"command": "true"}))
	requireOK(t, res)
	requireEqual(t, res.Output, "(no output)\n\n[exit code: 0]")
}

func TestBashArgumentErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	requireError(t, run(t, Bash{}, callIn(t, dir, map[string]any{})), `"command"`)
	requireError(t, run(t, Bash{}, callIn(t, dir, map[string]any{"command": "true", "timeout": -1})), `"timeout"`)
	requireError(t, run(t, Bash{}, callIn(t, dir, map[string]any{"command": "true", "timeout": "soon"})), `"timeout"`, "number")
	// Milliseconds sent where seconds are asked for are capped, not overflowed.
	requireOK(t, run(t, Bash{}, callIn(t, dir, map[string]any{"command": "true", "timeout": 1e300})))
}

// recorder collects progress updates; Run promises no concurrent calls, and
// the mutex lets the race detector check that promise.
type recorder struct {
	mu      sync.Mutex
	updates []string
}

func (r *recorder) progress(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, s)
}

func TestBashStreamsCumulativeOutput(t *testing.T) {
	t.Parallel()
	var rec recorder
	call := callIn(t, t.TempDir(), map[string]any{"command": "for i in 1 2 3 4 5; do echo step $i; sleep 0.1; done"})
	res, err := Bash{}.Run(context.Background(), call, rec.progress)
	if err != nil {
		t.Fatal(err)
	}
	requireOK(t, res)
	if len(rec.updates) < 2 {
		t.Fatalf("expected several progress updates, got %q", rec.updates)
	}
	for i := 1; i < len(rec.updates); i++ {
		if !strings.HasPrefix(rec.updates[i], rec.updates[i-1]) {
			t.Fatalf("update %d is not cumulative:\nprev %q\nnext %q", i, rec.updates[i-1], rec.updates[i])
		}
	}
	requireEqual(t, rec.updates[len(rec.updates)-1], "step 1\nstep 2\nstep 3\nstep 4\nstep 5\n")
}

func TestBashTimeout(t *testing.T) {
	t.Parallel()
	start := time.Now()
	res := run(t, Bash{}, callIn(t, t.TempDir(), map[string]any{"command": "echo started; sleep 30", "timeout": 0.5}))
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("timeout took %s", d)
	}
	requireError(t, res, "started\n", "timed out after 500ms")
	requireEqual(t, res.Metadata[MetaTimedOut].(bool), true)
}

func TestBashDefaultTimeoutOverride(t *testing.T) {
	t.Parallel()
	res := run(t, Bash{DefaultTimeout: 300 * time.Millisecond}, callIn(t, t.TempDir(), map[string]any{"command": "sleep 30"}))
	requireError(t, res, "timed out after 300ms")
}

func TestBashCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	res, err := Bash{}.Run(ctx, callIn(t, t.TempDir(), map[string]any{"command": "sleep 30"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancel took %s", d)
	}
	requireError(t, res, "command cancelled")
	requireEqual(t, res.Metadata[MetaCancelled].(bool), true)
}

func TestBashTruncationSpillsFullOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var rec recorder
	call := callIn(t, dir, map[string]any{"command": "seq 1 5000"})
	res, err := Bash{}.Run(context.Background(), call, rec.progress)
	if err != nil {
		t.Fatal(err)
	}
	requireOK(t, res)
	if res.FullOutputPath == "" {
		t.Fatalf("no full output path; output:\n%s", abbreviate(res.Output))
	}
	if !strings.HasPrefix(res.FullOutputPath, call.SpillDir) {
		t.Fatalf("full output %s is not in the spill dir %s", res.FullOutputPath, call.SpillDir)
	}
	var want strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	requireEqual(t, mustRead(t, res.FullOutputPath), want.String())
	requireContains(t, res.Output, "\n5000\n", "showing the last 2000 of 5000 lines", res.FullOutputPath)
	if strings.HasPrefix(res.Output, "1\n") || strings.Contains(res.Output, "\n3000\n") {
		t.Fatal("output kept the head instead of the tail")
	}
	requireEqual(t, res.Metadata[MetaTruncated].(bool), true)
	for _, u := range rec.updates {
		if len(u) > MaxOutputBytes || countLines(u) > MaxOutputLines {
			t.Fatalf("progress update exceeds the limits: %d bytes, %d lines", len(u), countLines(u))
		}
	}
}

func TestBashSmallOutputLeavesNoSpillFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	call := callIn(t, dir, map[string]any{"command": "seq 1 10"})
	requireOK(t, run(t, Bash{}, call))
	entries, _ := os.ReadDir(call.SpillDir)
	requireEqual(t, len(entries), 0)
}

func TestBashMissingCwdIsModelError(t *testing.T) {
	t.Parallel()
	call := callIn(t, t.TempDir(), map[string]any{"command": "true"})
	call.Cwd += "/gone"
	requireError(t, run(t, Bash{}, call), "does not exist")
}
