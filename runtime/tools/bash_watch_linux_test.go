//go:build linux

package tools

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/proc"
)

// helperEnv makes the test binary, re-executed, run treeCommand through
// Bash and print its pids: a stand-in for troupe that the test can SIGKILL.
const helperEnv = "TROUPE_TOOLS_BASH_HELPER"

func TestBashHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("runs only as the helper of TestBashTreeDiesWithItsHost")
	}
	printed := false
	progress := func(s string) {
		if pids := parsePids(s); len(pids) == 3 && !printed {
			printed = true
			for _, pid := range pids {
				fmt.Printf("pid %d\n", pid)
			}
		}
	}
	call := callIn(t, dir, map[string]any{"command": treeCommand})
	call.OnStart = func(p proc.Proof) { fmt.Printf("group %d\n", p.PID) }
	_, _ = Bash{}.Run(context.Background(), call, progress)
}

// SIGKILL of the process running a bash call takes the call's whole
// process group with it, grandchildren included.
func TestBashTreeDiesWithItsHost(t *testing.T) {
	t.Parallel()
	var pids []int
	killOnCleanup(t, &pids)
	cmd := exec.Command(os.Args[0], "-test.run=^TestBashHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	group := 0
	lines := bufio.NewScanner(out)
	for (group == 0 || len(pids) < 3) && lines.Scan() {
		line := lines.Text()
		if n, ok := strings.CutPrefix(line, "group "); ok {
			_, _ = fmt.Sscan(n, &group)
		}
		pids = append(pids, parsePids(line)...)
	}
	if len(pids) != 3 || group == 0 {
		t.Fatalf("the helper reported group %d and pids %v", group, pids)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	requireDead(t, pids)
	deadline := time.Now().Add(5 * time.Second)
	for proc.GroupAlive(group) {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d survived its host", group)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
