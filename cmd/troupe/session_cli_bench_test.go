package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// BenchmarkDaemonCLI: the wall time of the commands a person types, each
// a new process: `daemon start` (detach, to health from its pid) and
// `daemon stop` (SIGTERM to gone) on an existing home, and with the daemon
// up, `session list` (20 sessions), `session queue` (ACP dial, read-only
// attach) and `session prompt` of a one-chunk answer. Medians.
func BenchmarkDaemonCLI(b *testing.B) {
	adoptOrphans(b)
	home := b.TempDir()
	reply := llmserver.Steps(llmserver.Text("ok"))
	srv := llmserver.New(b, llmserver.Script{Model: "tiny", Default: &reply})
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	start := []string{"daemon", "start", "--listen", "127.0.0.1:0", "--provider", "openai", "--model", "tiny"}
	median := func(b *testing.B, name string, f func()) {
		var took []time.Duration
		for b.Loop() {
			t0 := time.Now()
			f()
			took = append(took, time.Since(t0))
		}
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-"+name+"(median)")
	}
	b.Run("start-stop", func(b *testing.B) {
		var starts, stops []time.Duration
		for b.Loop() {
			t0 := time.Now()
			cli(b, env, "", start...).ok(b, "daemon start")
			starts = append(starts, time.Since(t0))
			reapedDaemon(b, home)
			t0 = time.Now()
			cli(b, env, "", "daemon", "stop").ok(b, "daemon stop")
			stops = append(stops, time.Since(t0))
		}
		slices.Sort(starts)
		slices.Sort(stops)
		b.ReportMetric(float64(starts[len(starts)/2].Microseconds())/1000, "ms-start(median)")
		b.ReportMetric(float64(stops[len(stops)/2].Microseconds())/1000, "ms-stop(median)")
	})
	cli(b, env, "", start...).ok(b, "daemon start")
	reapedDaemon(b, home)
	b.Cleanup(func() { cli(b, env, "", "daemon", "stop") })
	var id string
	for range 20 {
		id = strings.TrimSpace(cli(b, env, "", "session", "new", "--cwd", home).ok(b, "session new"))
	}
	b.Run("list", func(b *testing.B) {
		median(b, "list", func() { cli(b, env, "", "session", "list").ok(b, "session list") })
	})
	b.Run("queue", func(b *testing.B) {
		median(b, "queue", func() { cli(b, env, "", "session", "queue", id).ok(b, "session queue") })
	})
	b.Run("prompt", func(b *testing.B) {
		median(b, "prompt", func() {
			testkit.Equal(b, cli(b, env, "", "session", "prompt", id, "hi").ok(b, "session prompt"), "ok\n")
		})
	})
}
