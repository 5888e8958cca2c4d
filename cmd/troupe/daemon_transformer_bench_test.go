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

// BenchmarkTransformerChain: the latency a one-transformer chain adds
// through the daemon, with testkit's plugin program as the transformer
// (answering continue). session/prompt: one client prompts two sessions in
// turn, one whose chain intercepts request:session/prompt and one without,
// 200 prompts each of a one-word reply; the figures are the differences of
// the round trips' median and p99 (prompt sent to answer read).
// session/update: a 1,000-delta reply in a session whose chain intercepts
// response:session/update and in one without, 5 turns each; the figures
// are the differences of the median and p99 gaps between consecutive
// chunks the client reads, and of the turns' median wall time.
func BenchmarkTransformerChain(b *testing.B) {
	const prompts, deltas, turns = 200, 1000, 5
	home := b.TempDir()
	log := filepath.Join(b.TempDir(), "tr.log")
	plugin := func(name, intercepts string) map[string]any {
		return map[string]any{"name": name, "command": []string{testkit.BuildPlugin(b)},
			"env": map[string]string{"PLUGIN_INTERCEPTS": intercepts, "PLUGIN_LOG": log}}
	}
	cfg, err := yaml.Marshal(map[string]any{"transformers": []any{
		plugin("tr", "request:session/prompt"), plugin("up", "response:session/update")}})
	testkit.NoError(b, err)
	testkit.NoError(b, os.WriteFile(filepath.Join(home, "config.yml"), cfg, 0o600))
	reply := llmserver.Steps(llmserver.Text("done"))
	long := llmserver.Steps(llmserver.Tokens(deltas, "x"))
	var replies []llmserver.Reply
	for range 2 * turns {
		replies = append(replies, long)
	}
	srv := llmserver.New(b, llmserver.Script{Model: "tiny", Replies: replies, Default: &reply})
	d := startDaemon(b, home, []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
		"--provider", "openai", "--model", "tiny")
	testkit.Eventually(b, 30*time.Second, "the transformers connected", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), `"probe":"transformer/initialize"`) >= 2
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
	// turn returns the gaps between the chunks of one turn and its wall time.
	turn := func(sid string) ([]time.Duration, time.Duration) {
		start := time.Now()
		id := c.prompt(sid, "go")
		var gaps []time.Duration
		last := time.Time{}
		for {
			f := c.read(time.Minute)
			if f.isUpdate("agent_message_chunk") {
				now := time.Now()
				if !last.IsZero() {
					gaps = append(gaps, now.Sub(last))
				}
				last = now
			}
			if f.answers(id) {
				return gaps, time.Since(start)
			}
		}
	}
	updOn, updOff := session([]string{"up"}), session([]string{})
	var gapsOn, gapsOff, wallOn, wallOff []time.Duration
	for range turns {
		g, w := turn(updOn)
		gapsOn, wallOn = append(gapsOn, g...), append(wallOn, w)
		g, w = turn(updOff)
		gapsOff, wallOff = append(gapsOff, g...), append(wallOff, w)
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
		b.ReportMetric(float64((quantile(on, 0.5) - quantile(off, 0.5)).Microseconds()), "µs-prompt-added-p50")
		b.ReportMetric(float64((quantile(on, 0.99) - quantile(off, 0.99)).Microseconds()), "µs-prompt-added-p99")
		b.ReportMetric(float64(quantile(off, 0.5).Microseconds()), "µs-prompt-p50")
	}
	b.ReportMetric(float64((quantile(gapsOn, 0.5) - quantile(gapsOff, 0.5)).Microseconds()), "µs-update-added-p50")
	b.ReportMetric(float64((quantile(gapsOn, 0.99) - quantile(gapsOff, 0.99)).Microseconds()), "µs-update-added-p99")
	b.ReportMetric(float64((quantile(wallOn, 0.5)-quantile(wallOff, 0.5)).Microseconds())/1000, "ms-1000-update-turn-added")
}

func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}
