package subprocess_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit/subprocess"
)

func TestLaunchReadsLinesKeepsStderrAndReportsTheExit(t *testing.T) {
	p, err := subprocess.Launch(exec.Command("sh", "-c", `read x; echo "got $x"; echo oops >&2; exit 3`))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if _, err := p.Stdin.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	if line, ok := p.ReadLine(10 * time.Second); !ok || line != "got ping" {
		t.Fatalf("line %q %v, want \"got ping\"", line, ok)
	}
	if code := p.Wait(t, 10*time.Second); code != 3 {
		t.Fatalf("exit code %d, want 3", code)
	}
	if _, open := <-p.Lines(); open {
		t.Fatal("stdout still open after the exit")
	}
	if got := p.Stderr(); strings.TrimSpace(got) != "oops" {
		t.Fatalf("stderr %q", got)
	}
}

func TestKillIsASignalExit(t *testing.T) {
	p, err := subprocess.Launch(exec.Command("sleep", "60"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if _, err := p.ExitCode(50 * time.Millisecond); err == nil {
		t.Fatal("a sleeping process reported an exit")
	}
	p.Kill()
	if code, err := p.ExitCode(10 * time.Second); err != nil || code != -1 {
		t.Fatalf("exit %d %v, want -1 (killed by a signal)", code, err)
	}
}
