package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// TestDaemonScaleProbe runs BenchmarkDaemonScale's latency probe through a
// real daemon beside one session of the load: the first probe reply's
// stamped deltas all come back, each read after it was written, and the
// daemon's committed events counter moved by what the two sessions
// committed.
func TestDaemonScaleProbe(t *testing.T) {
	llm := scaleLLM(t, scaleDeltas, 0)
	d := startDaemonBinary(t, t.TempDir(), []string{"OPENAI_BASE_URL=" + llm.url + "/v1", "OPENAI_API_KEY="},
		"--provider", "openai", "--model", "tiny")
	cwd := t.TempDir()
	testkit.NoError(t, os.WriteFile(filepath.Join(cwd, scaleFile), []byte("hello\n"), 0o644))
	p := startProbe(t, d, cwd, llm.clock)
	c, err := dialScale(d.wsURL(""), d.token, nil)
	testkit.NoError(t, err)
	t.Cleanup(c.close)
	before := eventsAppended(t, d)

	p.measure()
	testkit.NoError(t, c.conversation(cwd, make(chan struct{}, 1)))
	testkit.Eventually(t, time.Minute, "the probe's first reply", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.lat) >= probeDeltas
	})
	lat, err := p.stop()
	testkit.NoError(t, err)
	if slices.Min(lat) <= 0 {
		t.Fatalf("a chunk was read before it was written: %v", slices.Min(lat))
	}
	// The conversation: 3 prompts, 4 answers of scaleDeltas deltas each.
	if got := eventsAppended(t, d) - before; got < 4*scaleDeltas+probeDeltas {
		t.Fatalf("troupe_events_appended_total moved by %d, want at least %d", got, 4*scaleDeltas+probeDeltas)
	}
	if c.toolsDone() != 1 {
		t.Fatalf("%d reads completed, want the conversation's one", c.toolsDone())
	}
}

// TestScaleNs: SCALE_N's list, the default when empty, and an error for a
// count that is not one.
func TestScaleNs(t *testing.T) {
	if ns, err := scaleNs(" "); err != nil || !slices.Equal(ns, []int{100, 1000, 10000}) {
		t.Fatalf("empty: %v %v", ns, err)
	}
	if ns, err := scaleNs("20 300"); err != nil || !slices.Equal(ns, []int{20, 300}) {
		t.Fatalf("20 300: %v %v", ns, err)
	}
	for _, bad := range []string{"0", "x", "10 -1"} {
		if _, err := scaleNs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestScaleGap: SCALE_DELTA_GAP's duration, none when empty, an error for
// what is not one.
func TestScaleGap(t *testing.T) {
	if gap, err := scaleGap(""); err != nil || gap != 0 {
		t.Fatalf("empty: %v %v", gap, err)
	}
	if gap, err := scaleGap("100ms"); err != nil || gap != 100*time.Millisecond {
		t.Fatalf("100ms: %v %v", gap, err)
	}
	for _, bad := range []string{"100", "-1s", "soon"} {
		if _, err := scaleGap(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
