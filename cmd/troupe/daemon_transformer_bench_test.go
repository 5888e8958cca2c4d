package main

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"gopkg.in/yaml.v3"
)

// BenchmarkTransformerChain: the latency a one-transformer chain adds
// through the daemon, with testkit's plugin program as the transformer
// (answering continue). session/prompt: one client prompts two sessions in
// turn, one whose chain intercepts request:session/prompt and one without,
// 200 prompts each of a one-word reply; the figures are the differences of
// the round trips' median and p99 (prompt sent to answer read).
// session/update: a 1,000-delta reply in a session whose chain intercepts
// response:session/update (gated: each chunk waits for the transformer's
// answer) and in one without, 5 turns each, alternating; each chunk's
// latency is from its event's recorded_at (the session's commit, read
// back from the store with `troupe events`) to the client reading it. The
// figures are both sessions' median and p99 and their differences, and
// the difference of the turns' median wall time: a burst, where the chain
// (one update at a time, in order) is the bottleneck. The paced figures
// are the same for 200 deltas 10 ms apart, 3 turns each: a model's pace,
// where each update waits for one trip through the chain.
func BenchmarkTransformerChain(b *testing.B) {
	const prompts, deltas, turns = 200, 1000, 5
	const pacedDeltas, pacedTurns = 200, 3
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
	// paced: a model's pace, one delta every 10 ms.
	var steps []llmserver.Step
	for range pacedDeltas {
		steps = append(steps, llmserver.Text("y"), llmserver.Delay(10*time.Millisecond))
	}
	for range 2 * pacedTurns {
		replies = append(replies, llmserver.Steps(steps...))
	}
	srv := llmserver.New(b, llmserver.Script{Model: "tiny", Replies: replies, Default: &reply})
	// A benchmark measures the daemon binary, as BENCHMARKS.md's figures do.
	d := startDaemonBinary(b, home, []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="},
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
		c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": b.TempDir(),
			"_meta": map[string]any{"hydra-acp": map[string]any{"transformers": chain}}})).Decode(b, &res)
		return res.SessionID
	}
	// turn returns when the client read each chunk of one turn, by seq,
	// and the turn's wall time.
	turn := func(sid string) (map[int64]time.Time, time.Duration) {
		start := time.Now()
		id := c.Prompt(sid, "go")
		read := map[int64]time.Time{}
		for {
			f := c.Read(time.Minute)
			if f.IsUpdate("agent_message_chunk") {
				read[acpclient.MessageSeq(b, f)] = time.Now()
			}
			if f.Answers(id) {
				return read, time.Since(start)
			}
		}
	}
	updOn, updOff := session([]string{"up"}), session([]string{})
	readOn, readOff := map[int64]time.Time{}, map[int64]time.Time{}
	var wallOn, wallOff []time.Duration
	for range turns {
		r, w := turn(updOn)
		maps.Copy(readOn, r)
		wallOn = append(wallOn, w)
		r, w = turn(updOff)
		maps.Copy(readOff, r)
		wallOff = append(wallOff, w)
	}
	latOn, latOff := commitToRead(b, home, updOn, readOn), commitToRead(b, home, updOff, readOff)
	pacedOn, pacedOff := session([]string{"up"}), session([]string{})
	readOn, readOff = map[int64]time.Time{}, map[int64]time.Time{}
	for range pacedTurns {
		r, _ := turn(pacedOn)
		maps.Copy(readOn, r)
		r, _ = turn(pacedOff)
		maps.Copy(readOff, r)
	}
	pacedLatOn, pacedLatOff := commitToRead(b, home, pacedOn, readOn), commitToRead(b, home, pacedOff, readOff)
	with, without := session([]string{"tr"}), session([]string{})
	roundTrip := func(sid string) time.Duration {
		start := time.Now()
		c.WaitAnswer(c.Prompt(sid, "go"))
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
	b.ReportMetric(float64(quantile(latOff, 0.5).Microseconds()), "µs-update-p50")
	b.ReportMetric(float64(quantile(latOff, 0.99).Microseconds()), "µs-update-p99")
	b.ReportMetric(float64(quantile(latOn, 0.5).Microseconds()), "µs-update-gated-p50")
	b.ReportMetric(float64(quantile(latOn, 0.99).Microseconds()), "µs-update-gated-p99")
	b.ReportMetric(float64((quantile(latOn, 0.5) - quantile(latOff, 0.5)).Microseconds()), "µs-update-added-p50")
	b.ReportMetric(float64((quantile(latOn, 0.99) - quantile(latOff, 0.99)).Microseconds()), "µs-update-added-p99")
	b.ReportMetric(float64((quantile(wallOn, 0.5)-quantile(wallOff, 0.5)).Microseconds())/1000, "ms-1000-update-turn-added")
	b.ReportMetric(float64(quantile(pacedLatOff, 0.5).Microseconds()), "µs-paced-update-p50")
	b.ReportMetric(float64((quantile(pacedLatOn, 0.5) - quantile(pacedLatOff, 0.5)).Microseconds()), "µs-paced-update-added-p50")
	b.ReportMetric(float64((quantile(pacedLatOn, 0.99) - quantile(pacedLatOff, 0.99)).Microseconds()), "µs-paced-update-added-p99")
}

// commitToRead is each chunk's latency from its event's recorded_at, as
// the store has it, to when the client read it.
func commitToRead(b *testing.B, home, sid string, read map[int64]time.Time) []time.Duration {
	b.Helper()
	out, err := exec.Command(testkit.BuildTroupe(b), "events", sid, "--home", home).Output()
	testkit.NoError(b, err)
	var lat []time.Duration
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		var e struct {
			Seq        int64     `json:"seq"`
			RecordedAt time.Time `json:"recorded_at"`
		}
		testkit.NoError(b, json.Unmarshal([]byte(line), &e))
		if at, ok := read[e.Seq]; ok {
			lat = append(lat, at.Sub(e.RecordedAt))
		}
	}
	if len(lat) != len(read) {
		b.Fatalf("%d chunks read, %d found in the store", len(read), len(lat))
	}
	return lat
}

func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}
