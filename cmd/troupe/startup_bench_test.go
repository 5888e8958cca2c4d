package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// BenchmarkStartup: process start to the first thing a caller can use,
// for the commands BenchmarkDaemonStart and BenchmarkRPC/startup do not
// time: `troupe version` to its exit, and `troupe --json-stream` to its
// ready line (the RPC figure is transports/rpc's). Medians, as start-up
// on a shared machine has a long tail (BENCHMARKS.md, "Start-up").
func BenchmarkStartup(b *testing.B) {
	bin := testkit.BuildTroupe(b)
	b.Run("version", func(b *testing.B) {
		var took []time.Duration
		for b.Loop() {
			start := time.Now()
			out, err := exec.Command(bin, "version").Output()
			took = append(took, time.Since(start))
			testkit.NoError(b, err)
			if !strings.HasPrefix(string(out), "troupe ") {
				b.Fatalf("version printed %q", out)
			}
		}
		reportMedian(b, took, "ms-to-exit(median)")
	})
	b.Run("json-stream", func(b *testing.B) {
		home := b.TempDir()
		env := []string{"OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_API_KEY="}
		var took []time.Duration
		for b.Loop() {
			start := time.Now()
			p := testkit.Start(b, bin, env, "--json-stream", "--home", home, "--provider", "openai", "--model", "tiny")
			line, ok := p.ReadLine(10 * time.Second)
			took = append(took, time.Since(start))
			if !ok || !strings.Contains(line, `"type":"ready"`) {
				b.Fatalf("no ready line: %q %s", line, p.Stderr())
			}
			p.Stdin.Close()
			p.Wait(b, 10*time.Second)
		}
		reportMedian(b, took, "ms-to-ready(median)")
	})
}

func reportMedian(b *testing.B, took []time.Duration, unit string) {
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, unit)
}
