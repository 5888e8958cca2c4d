package rpc_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// BenchmarkRPCPartials compares the two --partials modes on one reply of
// 20,000 four-byte deltas through the built binary: deltas/s read by the
// client, bytes written to stdout and the process's peak resident memory
// (VmHWM). Full partials grow with the reply, so their output is
// quadratic in its length; that is the spec's shape, measured here. The
// modes alternate, run after run, so that a noisy machine weighs on both
// alike; medians are reported and the ranges logged.
func BenchmarkRPCPartials(b *testing.B) {
	const deltas, token = 20_000, "tok "
	rounds := benchRounds()
	bin := testkit.BuildTroupe(b)
	modes := []string{"full", "skeleton"}
	runs := map[string][]partialsRun{}
	for i := 0; i < b.N*rounds; i++ {
		for _, mode := range modes {
			runs[mode] = append(runs[mode], runPartials(b, bin, mode, deltas, token))
		}
	}
	for _, mode := range modes {
		rs := runs[mode]
		rate := stat(rs, func(r partialsRun) float64 { return r.rate })
		out := stat(rs, func(r partialsRun) float64 { return r.bytes / 1e6 })
		hwm := stat(rs, func(r partialsRun) float64 { return r.hwm })
		lines := stat(rs, func(r partialsRun) float64 { return r.lines })
		b.ReportMetric(rate[1], "deltas/s-"+mode)
		b.ReportMetric(out[1], "MB-out-"+mode)
		b.ReportMetric(hwm[1], "MB-VmHWM-"+mode)
		b.Logf("%s: %d runs; deltas/s %.0f (%.0f–%.0f); MB written %.1f (%.1f–%.1f); lines %.0f (%.0f–%.0f); MB VmHWM %.1f (%.1f–%.1f)",
			mode, len(rs), rate[1], rate[0], rate[2], out[1], out[0], out[2], lines[1], lines[0], lines[2], hwm[1], hwm[0], hwm[2])
	}
}

// benchRounds is how many times the alternating benchmarks run each
// case: TROUPE_BENCH_ROUNDS, default 5.
func benchRounds() int {
	if v, err := strconv.Atoi(os.Getenv("TROUPE_BENCH_ROUNDS")); err == nil && v > 0 {
		return v
	}
	return 5
}

const deltaKey = `"text_delta","contentIndex":0,"delta":"`

type partialsRun struct {
	rate, bytes, lines, hwm float64
}

// stat is the minimum, median and maximum of f over rs.
func stat(rs []partialsRun, f func(partialsRun) float64) [3]float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	return [3]float64{v[0], v[len(v)/2], v[len(v)-1]}
}

func runPartials(b *testing.B, bin, mode string, n int, token string) partialsRun {
	srv := llmserver.New(b, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Tokens(n, token))}})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	p := testkit.Start(b, bin, env, "--mode", "rpc", "--home", b.TempDir(), "--provider", "openai", "--model", "tiny", "--partials", mode)
	fmt.Fprintln(p.Stdin, `{"type":"prompt","message":"go"}`)
	var r partialsRun
	began := time.Now()
	chars := 0
	for {
		line, ok := p.ReadLine(120 * time.Second)
		if !ok {
			b.Fatalf("output ended: %s", p.Stderr())
		}
		r.bytes += float64(len(line) + 1)
		// The delta follows the first partial; deltas may arrive merged.
		if i := strings.Index(line, deltaKey); i >= 0 {
			chars += strings.IndexByte(line[i+len(deltaKey):], '"')
			r.lines++
		}
		if strings.HasPrefix(line, `{"type":"agent_end"`) {
			break
		}
	}
	// The reply's text loses its last token's trailing space.
	got := (chars + len(token) - 1) / len(token)
	r.rate = float64(got) / time.Since(began).Seconds()
	if got != n {
		b.Fatalf("%s: forwarded %d deltas, want %d", mode, got, n)
	}
	r.hwm = vmStatus(b, p.Cmd.Process.Pid, "VmHWM:")
	p.Stdin.Close()
	p.Wait(b, 60*time.Second)
	return r
}
