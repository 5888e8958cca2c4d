package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPrintsOneRow builds the command and runs it as make bench-scale does,
// on a small N: the table's head, then one row with every figure.
func TestPrintsOneRow(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "troupe-scale")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-n", "20", "-header").Output()
	if err != nil {
		t.Fatalf("troupe-scale: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || lines[0]+"\n"+lines[1] != Header {
		t.Fatalf("output:\n%s\nwant the head and one row", out)
	}
	row := regexp.MustCompile(`^\| 20 \| [0-9.]+ s \| [0-9]+ \| [0-9]+ \| [0-9.]+ s \| [0-9.]+ µs \| [0-9]+ MB \| -?[0-9.]+ KB \| -?[0-9.]+ KB \| -?[0-9.]+ \| [0-9]+ µs \| [0-9]+ µs \| [1-9][0-9]* \|$`)
	if !row.MatchString(lines[2]) {
		t.Fatalf("row %q is not N, wall, events, events/s, CPU, CPU/event, peak, heap, RSS, goroutines, chunk p50, p99, samples", lines[2])
	}
}

// TestBadFlag: a flag the command does not know is an error, not a run.
func TestBadFlag(t *testing.T) {
	var stderr strings.Builder
	err := run(t.Context(), []string{"-sessions", "5"}, &strings.Builder{}, &stderr)
	if err == nil || !strings.Contains(stderr.String(), "flag provided but not defined: -sessions") {
		t.Fatalf("err %v, stderr %q", err, stderr.String())
	}
}
