package rpc_test

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// BenchmarkRPC reports, for the built `troupe --mode rpc`, the issue's
// three figures: ms from process start to the first get_state response,
// resident memory after one short conversation, and text deltas forwarded
// to stdout per second (end to end: scripted server, engine, store,
// projection, stdout) with --partials skeleton, whose lines do not grow
// with the reply (BenchmarkRPCPartials compares the modes).
func BenchmarkRPC(b *testing.B) {
	bin := testkit.BuildTroupe(b)
	b.Run("startup", func(b *testing.B) {
		home := b.TempDir()
		srv := llmserver.New(b, llmserver.Script{})
		env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
		var total time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			p := testkit.Start(b, bin, env, "--mode", "rpc", "--home", home, "--provider", "openai", "--model", "tiny")
			fmt.Fprintln(p.Stdin, `{"id":"s","type":"get_state"}`)
			if line, ok := p.ReadLine(10 * time.Second); !ok || !strings.Contains(line, `"get_state"`) {
				b.Fatalf("no get_state answer: %q %s", line, p.Stderr())
			}
			total += time.Since(start)
			p.Stdin.Close()
			p.Wait(b, 10*time.Second)
		}
		b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/first-get_state")
	})
	b.Run("rss", func(b *testing.B) {
		var rss float64
		for i := 0; i < b.N; i++ {
			srv := llmserver.New(b, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("Hello there."))}})
			p := start(b, bin, srv)
			prompt(b, p, "hi")
			rss = vmStatus(b, p.Cmd.Process.Pid, "VmRSS:")
			p.Stdin.Close()
			p.Wait(b, 10*time.Second)
		}
		b.ReportMetric(rss, "MB-VmRSS")
	})
	b.Run("deltas", func(b *testing.B) {
		const n = 200_000
		for i := 0; i < b.N; i++ {
			srv := llmserver.New(b, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Tokens(n, "x"))}})
			p := start(b, bin, srv, "--partials", "skeleton")
			b.ResetTimer()
			began := time.Now()
			got := prompt(b, p, "go")
			elapsed := time.Since(began)
			b.StopTimer()
			if got < n {
				b.Fatalf("forwarded %d deltas, want %d", got, n)
			}
			b.ReportMetric(float64(got)/elapsed.Seconds(), "deltas/s")
			b.ReportMetric(elapsed.Seconds()*1e6/float64(got), "µs/delta")
			p.Stdin.Close()
			p.Wait(b, 30*time.Second)
		}
	})
}

func start(b *testing.B, bin string, srv *llmserver.Server, extra ...string) *testkit.Proc {
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	args := append([]string{"--mode", "rpc", "--home", b.TempDir(), "--provider", "openai", "--model", "tiny"}, extra...)
	return testkit.Start(b, bin, env, args...)
}

// prompt runs one prompt to its agent_end and counts the text deltas.
func prompt(b *testing.B, p *testkit.Proc, text string) int {
	fmt.Fprintf(p.Stdin, `{"type":"prompt","message":%q}`+"\n", text)
	deltas, lines := 0, 0
	defer func() { b.ReportMetric(float64(lines), "lines") }()
	for {
		line, ok := p.ReadLine(60 * time.Second)
		if !ok {
			b.Fatalf("output ended: %s", p.Stderr())
		}
		if strings.Contains(line, `"text_delta"`) {
			// Deltas may arrive merged (see the package doc): count the
			// one-character tokens, not the lines.
			if i := strings.Index(line, `"delta":"`); i >= 0 {
				deltas += strings.Index(line[i+9:], `"`)
			}
			lines++
		}
		if strings.HasPrefix(line, `{"messages"`) || strings.Contains(line, `"type":"agent_end"`) {
			return deltas
		}
	}
}

// vmStatus reads one memory figure of /proc/PID/status, in MB.
func vmStatus(b *testing.B, pid int, field string) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatalf("no %s", field)
	return 0
}
