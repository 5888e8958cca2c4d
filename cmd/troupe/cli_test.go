package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// An enum flag refuses any value outside its list, naming the list, with
// exit 2, in every command that has one.
func TestEnumFlagsRefuseOtherValues(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--mode", "yes", "hi"}, `invalid value "yes" for flag -mode: want default, auto_edit or yolo`},
		{[]string{"run", "--crash-policy", "maybe", "hi"}, `invalid value "maybe" for flag -crash-policy: want resume or stop`},
		{[]string{"run", "--thinking", "hot", "hi"}, `invalid value "hot" for flag -thinking: want off, minimal, low, medium, high or xhigh`},
		{[]string{"--mode", "rpc", "--approval-mode", "always"}, `invalid value "always" for flag -approval-mode: want default, auto_edit or yolo`},
		{[]string{"--mode", "rpc", "--thinking", "hot"}, `invalid value "hot" for flag -thinking: want off, minimal, low, medium, high or xhigh`},
		{[]string{"--json-stream", "--thinking", "hot"}, `invalid value "hot" for flag -thinking: want off, minimal, low, medium, high or xhigh`},
		{[]string{"events", "s", "--log-format", "xml"}, `invalid value "xml" for flag -log-format: want text or json`},
		{[]string{"append", "s", "--log-level", "loud"}, `invalid value "loud" for flag -log-level: want debug, info, warn or error`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			p := testkit.Start(t, bin, nil, append(c.args, "--home", home)...)
			testkit.Equal(t, p.Wait(t, 30*time.Second), 2)
			if !strings.Contains(p.Stderr(), c.want) {
				t.Fatalf("stderr lacks %q:\n%s", c.want, p.Stderr())
			}
		})
	}

	// The usage lists the accepted values.
	p := testkit.Start(t, bin, nil, "run", "-h")
	testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
	for _, want := range []string{"(default|auto_edit|yolo)", "(resume|stop)", "(off|minimal|low|medium|high|xhigh)", "(text|json)", "(debug|info|warn|error)"} {
		if !strings.Contains(p.Stderr(), want) {
			t.Fatalf("run -h lacks %s:\n%s", want, p.Stderr())
		}
	}

	// Listed values pass, in any case: run goes on to its next check.
	p = testkit.Start(t, bin, []string{"OPENAI_BASE_URL="}, "run", "--home", home, "--mode", "AUTO_EDIT", "--crash-policy", "stop",
		"--thinking", "high", "--log-format", "json", "--log-level", "DEBUG", "hi")
	testkit.Equal(t, p.Wait(t, 30*time.Second), 2)
	if strings.Contains(p.Stderr(), "invalid value") || !strings.Contains(p.Stderr(), "no provider selected") {
		t.Fatalf("stderr: %s", p.Stderr())
	}
}

// help's columns line up whatever the commands' lengths.
func TestHelpColumnsAligned(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	p := testkit.Start(t, bin, nil, "help")
	var rows []string
	inCommands := false
	for line := range p.Lines() {
		switch {
		case line == "Commands:":
			inCommands = true
		case inCommands && line == "":
			inCommands = false
		case inCommands:
			rows = append(rows, line)
		}
	}
	testkit.Equal(t, p.Wait(t, 10*time.Second), 0)
	if len(rows) < 6 {
		t.Fatalf("commands: %q", rows)
	}
	// The summary is the last column, after a gap of two spaces or more.
	gap := regexp.MustCompile(`\S {2,}(\S)`)
	start := -1
	for _, r := range rows {
		m := gap.FindAllStringSubmatchIndex(r, -1)
		if len(m) == 0 {
			t.Fatalf("row without columns: %q", r)
		}
		at := m[len(m)-1][2]
		if start >= 0 && at != start {
			t.Fatalf("summary at column %d, not %d:\n%s", at, start, strings.Join(rows, "\n"))
		}
		start = at
	}
}
