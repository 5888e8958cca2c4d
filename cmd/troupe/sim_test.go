package main

import (
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// troupe sim through the binary: a scenario with a SIGKILL of the daemon
// it started and a dropped client runs clean and reports every invariant.
func TestSimCommand(t *testing.T) {
	p := testkit.Start(t, testkit.BuildTroupe(t), nil, "sim", "testdata/sim/crash.yml", "--seed", "9", "--embedded", "--work", t.TempDir())
	code := p.Wait(t, 3*time.Minute)
	var out strings.Builder
	for l := range p.Lines() {
		out.WriteString(l + "\n")
	}
	report := out.String()
	if code != 0 {
		t.Fatalf("exit %d\n%s\nstderr:\n%s", code, report, p.Stderr())
	}
	for _, want := range []string{"scenario crash, seed 9", "kill_daemon", "drop_client", "violations: 0",
		"acknowledged events stored         ok", "each update seen once              ok", "completed tool calls ran once      ok",
		"latency, prompt sent to answered"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}

// A bad scenario or flag is refused in one line with exit 2; a scenario
// that kills the daemon is refused against a daemon the simulator does
// not own.
func TestSimCommandRefuses(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sim", "testdata/sim/bad.yml"}, 2, `troupe sim: scenario testdata/sim/bad.yml: fault 1: kind "meteor"`},
		{[]string{"sim"}, 2, "troupe sim: want one scenario file"},
		{[]string{"sim", "testdata/sim/crash.yml", "--seed", "x"}, 2, `troupe sim: --seed "x": want a number`},
		{[]string{"sim", "testdata/sim/crash.yml", "--daemon", "http://127.0.0.1:1", "--token", "t"}, 1, "troupe sim: the scenario kills the daemon"},
	} {
		p := testkit.Start(t, bin, nil, c.args...)
		testkit.Equal(t, p.Wait(t, time.Minute), c.code)
		if !strings.HasPrefix(p.Stderr(), c.want) {
			t.Errorf("%v: stderr %q, want it to start %q", c.args, p.Stderr(), c.want)
		}
	}
}
