package main

import (
	"maps"
	"strings"
	"testing"
)

// TestParseBenchOutput reads one sub-benchmark's metrics out of go test
// -bench output holding others, with or without the GOMAXPROCS suffix.
func TestParseBenchOutput(t *testing.T) {
	out := "goos: linux\ngoarch: amd64\npkg: github.com/troupehq/troupe/cmd/troupe\n" +
		"BenchmarkDaemonScale/sessions=1000-2 \t 1\t8423525639 ns/op\t 225.0 KB-rss/idle-session\t 96.81 MB-peak-rss\t 38133 µs-chunk-p50\n" +
		"BenchmarkDaemonScale/sessions=100-2 \t 1\t8423525639 ns/op\t 225.0 KB-rss/idle-session\t 96.81 MB-peak-rss\t 0.5977 s-wall\n" +
		"BenchmarkDaemonScale/sessions=10 \t 1\t1 ns/op\t 3 s-wall\nPASS\n"
	f, err := parseBenchOutput(out, "BenchmarkDaemonScale/sessions=100")
	if err != nil {
		t.Fatal(err)
	}
	want := figures{"ns/op": 8423525639, "KB-rss/idle-session": 225, "MB-peak-rss": 96.81, "s-wall": 0.5977}
	if !maps.Equal(f, want) {
		t.Fatalf("figures %v, want %v", f, want)
	}
	f, err = parseBenchOutput(out, "BenchmarkDaemonScale/sessions=10")
	if err != nil || !maps.Equal(f, figures{"ns/op": 1, "s-wall": 3}) {
		t.Fatalf("figures %v, %v", f, err)
	}
	if _, err := parseBenchOutput(out, "BenchmarkDaemonScale/sessions=5"); err == nil || !strings.Contains(err.Error(), "no line of") {
		t.Fatalf("a missing benchmark: %v", err)
	}
	if _, err := parseBenchOutput("BenchmarkX-2 1 abc s-wall\n", "BenchmarkX"); err == nil {
		t.Fatal("a value that is no number was read")
	}
}

// TestParseScaleTable reads troupe-scale's row by column head: an older
// build's table without the newer columns, and a row of the wrong N.
func TestParseScaleTable(t *testing.T) {
	old := "| sessions | wall | committed events | events/s | CPU/event | peak RSS (VmHWM) | idle heap/session | idle RSS/session | idle goroutines/session |\n" +
		"|---|---|---|---|---|---|---|---|---|\n" +
		"| 100 | 0.21 s | 22700 | 110518 | 13.2 µs | 84 MB | 28.1 KB | 115.8 KB | -0.64 |\n"
	f, err := parseScaleTable(old, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := figures{"sessions": 100, "wall": 0.21, "committed events": 22700, "events/s": 110518, "CPU/event": 13.2,
		"peak RSS (VmHWM)": 84, "idle heap/session": 28.1, "idle RSS/session": 115.8, "idle goroutines/session": -0.64}
	if !maps.Equal(f, want) {
		t.Fatalf("figures %v, want %v", f, want)
	}
	if _, err := parseScaleTable(old, 1000); err == nil || !strings.Contains(err.Error(), "want 1000") {
		t.Fatalf("a row of another N: %v", err)
	}
	if _, err := parseScaleTable("| sessions | wall |\n|---|---|\n| 100 |\n", 100); err == nil {
		t.Fatal("a row shorter than its head was read")
	}
	if _, err := parseScaleTable("| sessions | wall |\n|---|---|\n| 100 | n/a |\n", 100); err == nil {
		t.Fatal("a cell that is no number was read")
	}
}
