package rpc_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// BenchmarkRPCCPU is the CPU time (user and system) the built `troupe
// --mode rpc` spends per streamed delta of a 20,000-delta reply, in each
// --partials mode: the whole process (the LLM client, the engine, the
// store, the projection, stdout) as the kernel accounts it at exit. The
// cost of starting, of a prompt and of exiting is taken out by running the
// same conversation with a one-delta reply and subtracting it. Runs
// alternate (long, short, mode after mode) so that a noisy machine weighs
// on all alike; medians are reported and the ranges logged.
func BenchmarkRPCCPU(b *testing.B) {
	const deltas, token = 20_000, "tok "
	bin := testkit.BuildTroupe(b)
	modes := []string{"full", "skeleton"}
	perDelta := map[string][]float64{}
	for i := 0; i < b.N*benchRounds(); i++ {
		for _, mode := range modes {
			long := replyCPU(b, bin, mode, deltas, token)
			short := replyCPU(b, bin, mode, 1, token)
			perDelta[mode] = append(perDelta[mode], float64(long-short)/float64(time.Microsecond)/(deltas-1))
		}
	}
	for _, mode := range modes {
		v := perDelta[mode]
		slices.Sort(v)
		med := v[len(v)/2]
		b.ReportMetric(med, "µs-cpu/delta-"+mode)
		b.Logf("%s: %d runs; CPU per delta %.2f µs (%.2f–%.2f)", mode, len(v), med, v[0], v[len(v)-1])
	}
}

// replyCPU runs one prompt whose reply is n deltas of token to its
// agent_end, lets the process exit and returns the CPU time it used.
func replyCPU(b *testing.B, bin, mode string, n int, token string) time.Duration {
	srv := llmserver.New(b, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Tokens(n, token))}})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	p := testkit.Start(b, bin, env, "--mode", "rpc", "--home", b.TempDir(), "--provider", "openai", "--model", "tiny", "--partials", mode)
	fmt.Fprintln(p.Stdin, `{"type":"prompt","message":"go"}`)
	for {
		line, ok := p.ReadLine(120 * time.Second)
		if !ok {
			b.Fatalf("output ended: %s", p.Stderr())
		}
		if strings.HasPrefix(line, `{"type":"agent_end"`) {
			break
		}
	}
	p.Stdin.Close()
	if code := p.Wait(b, 60*time.Second); code != 0 {
		b.Fatalf("exit %d: %s", code, p.Stderr())
	}
	st := p.Cmd.ProcessState
	return st.UserTime() + st.SystemTime()
}
