package main

import (
	"testing"

	"github.com/troupehq/troupe/testkit/llmserver"
)

// BenchmarkCatStream: 10 MiB through `troupe cat --stream` into the
// daemon's ring, from cat's start to its exit (a session created, the
// ring opened, 40 posts of 256 KiB, one scripted turn); bytes/s is the
// pipe's throughput end to end.
func BenchmarkCatStream(b *testing.B) {
	reply := llmserver.Steps(llmserver.Text("done"))
	srv := llmserver.New(b, llmserver.Script{Model: "tiny", Default: &reply})
	home := b.TempDir()
	// A benchmark measures the daemon binary, as BENCHMARKS.md's figures do.
	startDaemonBinary(b, home, []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		"--provider", "openai", "--model", "tiny", "--cwd", b.TempDir())
	in := stdinInput(10 << 20)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if code, out, _ := pipeCat(b, home, in, "--stream", "--capacity", "16777216"); code != 0 {
			b.Fatalf("cat: exit %d, %q", code, out)
		}
	}
}
