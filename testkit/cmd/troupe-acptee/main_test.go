package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit/agentcompat/acprec"
)

// The tee forwards each line both ways unchanged and records it with its
// side, a start per file; a line that is not JSON is kept as text; the
// program's exit status is the tee's.
func TestTeeRecordsBothSides(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "troupe-acptee")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	for range 2 {
		cmd := exec.Command(bin, dir, "--", "cat")
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\nnot json\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := string(out); got != `{"jsonrpc":"2.0","id":1,"method":"initialize"}`+"\nnot json\n" {
			t.Fatalf("forwarded %q", got)
		}
	}
	rs, err := acprec.ReadRecordings(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[1].Name != "start-2" {
		t.Fatalf("starts: %+v", rs)
	}
	var troupe, agent, text int
	for _, l := range rs[0].Lines {
		switch {
		case l.Text == "not json":
			text++
		case l.From == "troupe" && l.Method() == "initialize":
			troupe++
		case l.From == "agent" && l.Method() == "initialize":
			agent++
		}
	}
	if troupe != 1 || agent != 1 || text != 2 {
		t.Fatalf("recorded %+v", rs[0].Lines)
	}
	if _, err := os.Stat(filepath.Join(dir, "start-1.stderr")); err != nil {
		t.Fatal(err)
	}
	code := exec.Command(bin, dir, "--", "sh", "-c", "exit 3").Run()
	if ee, isExit := code.(*exec.ExitError); !isExit || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v", code)
	}
}
