package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// stampedLine is a daemon.log line: the date and time first.
var stampedLine = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} `)

// Every line of a detached daemon's daemon.log starts with the date and
// time, and its stop is logged with its cause (issue 25, item 22).
func TestDaemonLogIsStampedAndLogsTheStop(t *testing.T) {
	adoptOrphans(t)
	home := t.TempDir()
	env := []string{"TROUPE_HOME=" + home, "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_API_KEY="}
	cli(t, env, "", "daemon", "start", "--listen", "127.0.0.1:0").ok(t, "daemon start")
	pid := reapedDaemon(t, home)
	cli(t, env, "", "daemon", "stop").ok(t, "daemon stop")
	var ws syscall.WaitStatus
	var b []byte
	_, err := syscall.Wait4(pid, &ws, 0, nil) // adopted: reaped here
	testkit.NoError(t, err)

	b, err = os.ReadFile(filepath.Join(home, "daemon.log"))
	testkit.NoError(t, err)
	log := string(b)
	for _, l := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		if !stampedLine.MatchString(l) {
			t.Fatalf("a daemon.log line without its time: %q\nlog:\n%s", l, log)
		}
	}
	for _, want := range []string{"troupe daemon: listening on http://127.0.0.1:", "troupe daemon: stopping (signal terminated)", "troupe daemon: stopped (exit 0)"} {
		if !strings.Contains(log, want) {
			t.Fatalf("daemon.log lacks %q:\n%s", want, log)
		}
	}
}
