package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// run runs a scenario file through the real daemon binary and returns its
// result and report.
func run(t *testing.T, file string, opts Options) (*Result, string) {
	t.Helper()
	scn, err := Load(file)
	testkit.NoError(t, err)
	opts.Bin = testkit.BuildTroupe(t)
	opts.Work = t.TempDir()
	res, err := Run(context.Background(), scn, opts)
	testkit.NoError(t, err)
	var b strings.Builder
	res.Report(&b)
	return res, b.String()
}

// The CI scenario: every fault kind on a small seeded run, and no
// invariant broken.
func TestSmokeScenario(t *testing.T) {
	res, report := run(t, "testdata/smoke.yml", Options{})
	t.Log(report)
	if !res.OK() {
		t.Fatalf("violations:\n%s", report)
	}
}

// Same seed, same plan; another seed moves the random faults.
func TestPlanSeeded(t *testing.T) {
	scn, err := Parse([]byte(`
sessions:
  - {name: a, count: 5, clients: 3, model: {default: {steps: [{text: hi}]}}, prompts: [{at: 0s, text: go}]}
faults:
  - {at: 1s, kind: drop_client, session: a}
  - {at: 2s, every: 1s, count: 3, kind: kill_session}
random: {count: 20, kinds: [kill_daemon, kill_session, kill_tool, kill_llm, drop_client], from: 0s, to: 10s}
`))
	testkit.NoError(t, err)
	a, b := Plan(scn, 42), Plan(scn, 42)
	testkit.DeepEqual(t, a, b)
	testkit.Equal(t, len(a), 5+1+3+20)
	if c := Plan(scn, 43); slicesEqual(a, c) {
		t.Fatal("seeds 42 and 43 gave the same plan")
	}
	for i := 1; i < len(a); i++ {
		if a[i].At < a[i-1].At {
			t.Fatalf("plan out of order at %d: %s after %s", i, a[i], a[i-1])
		}
	}
}

func slicesEqual(a, b []Action) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A scenario mistake is refused with what and where.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{``, "scenario is empty"},
		{`sessions: []`, "no sessions"},
		{`nope: 1`, "field nope not found"},
		{`sessions: [{name: a}]`, "no model script"},
		{`sessions: [{name: a, model: {replies: [{steps: [{bogus: 1}]}]}}]`, "model: decode script"},
		{`sessions: [{name: a, model: {default: {steps: [{text: x}]}}, prompts: [{at: soon, text: x}]}]`, "want a duration"},
		{`sessions: [{name: a, model: {default: {steps: [{text: x}]}}}]
faults: [{at: 1s, kind: explode}]`, `kind "explode"`},
		{`sessions: [{name: a, model: {default: {steps: [{text: x}]}}}]
faults: [{at: 1s, kind: kill_session, session: b}]`, `no session "b"`},
		{`sessions: [{name: a, approve: maybe, model: {default: {steps: [{text: x}]}}}]`, `approve "maybe"`},
	} {
		_, err := Parse([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to say %q", c.yaml, err, c.want)
		}
	}
}

// Deliberately broken runs are caught: an event a client was shown
// deleted from the store while the daemon is down, an update handed to a
// client twice, a daemon that stops answering (SIGSTOP).
func TestInjectedViolationsAreReported(t *testing.T) {
	for _, c := range []struct{ inject, file, invariant string }{
		{"drop-acked-event", "broken.yml", invAcked},
		{"duplicate-update", "broken.yml", invOnce},
		{"freeze-daemon", "frozen.yml", invUp},
	} {
		t.Run(c.inject, func(t *testing.T) {
			res, report := run(t, "testdata/"+c.file, Options{Inject: c.inject})
			t.Log(report)
			found := false
			for _, v := range res.Violations {
				found = found || v.Invariant == c.invariant
			}
			if !found {
				t.Fatalf("no %q violation reported:\n%s", c.invariant, report)
			}
			if !strings.Contains(report, "VIOLATION") {
				t.Fatalf("the report does not show it:\n%s", report)
			}
		})
	}
}
