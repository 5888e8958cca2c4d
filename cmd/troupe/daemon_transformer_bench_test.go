package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// BenchmarkTransformerChain: the latency a one-transformer chain adds to
// session/prompt through the daemon. One client prompts two sessions in
// turn, one with the chain (testkit's plugin program, answering continue
// to request:session/prompt) and one without, 200 prompts each of a
// one-word reply; the figures are the differences of the round trips'
// median and p99 (prompt sent to answer read).
func BenchmarkTransformerChain(b *testing.B) {
	const prompts = 200
	home := b.TempDir()
	log := filepath.Join(b.TempDir(), "tr.log")
	cfg, err := yaml.Marshal(map[string]any{"transformers": []any{map[string]any{"name": "tr",
		"command": []string{testkit.BuildPlugin(b)},
		"env":     map[string]string{"PLUGIN_INTERCEPTS": "request:session/prompt", "PLUGIN_LOG": log}}}})
	testkit.NoError(b, err)
	testkit.NoError(b, os.WriteFile(filepath.Join(home, "config.yml"), cfg, 0o600))
	reply := llmserver.Steps(llmserver.Text("done"))
	srv := llmserver.New(b, llmserver.Script{Model: "tiny", Default: &reply})
	d := startDaemon(b, home, []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		"--provider", "openai", "--model", "tiny")
	testkit.Eventually(b, 30*time.Second, "the transformer connected", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), `"probe":"transformer/initialize"`)
	})
	c := d.dialACP(b, "bench")
	session := func(chain []string) string {
		var res struct {
			SessionID string `json:"sessionId"`
		}
		c.waitAnswer(c.call("session/new", map[string]any{"cwd": b.TempDir(),
			"_meta": map[string]any{"hydra-acp": map[string]any{"transformers": chain}}})).decode(b, &res)
		return res.SessionID
	}
	with, without := session([]string{"tr"}), session([]string{})
	roundTrip := func(sid string) time.Duration {
		start := time.Now()
		c.waitAnswer(c.prompt(sid, "go"))
		return time.Since(start)
	}
	for b.Loop() {
		var on, off []time.Duration
		for range prompts {
			on = append(on, roundTrip(with))
			off = append(off, roundTrip(without))
		}
		b.ReportMetric(float64((quantile(on, 0.5) - quantile(off, 0.5)).Microseconds()), "µs-added-p50")
		b.ReportMetric(float64((quantile(on, 0.99) - quantile(off, 0.99)).Microseconds()), "µs-added-p99")
		b.ReportMetric(float64(quantile(off, 0.5).Microseconds()), "µs-prompt-p50")
	}
}

func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}
