//go:build linux

package tools

import (
	"context"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/proc"
)

// requireDead waits a generous while for every pid to be gone.
func requireDead(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for proc.Alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d survived", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// killOnCleanup makes sure a failing test leaves no sleepers behind.
func killOnCleanup(t *testing.T, pids *[]int) {
	t.Cleanup(func() {
		for _, pid := range *pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

var pidLine = regexp.MustCompile(`(?m)^pid (\d+)$`)

func parsePids(s string) []int {
	var pids []int
	for _, m := range pidLine.FindAllStringSubmatch(s, -1) {
		pid, _ := strconv.Atoi(m[1])
		pids = append(pids, pid)
	}
	return pids
}

// treeCommand starts a child and a grandchild (through a nested shell) that
// would sleep forever, printing their pids, then waits.
const treeCommand = `sleep 1000 & echo "pid $!"
sh -c 'sleep 1000 & echo "pid $!"; wait' &
echo "pid $!"
wait`

func TestBashCancelKillsProcessTree(t *testing.T) {
	t.Parallel()
	var pids []int
	killOnCleanup(t, &pids)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	progress := func(s string) {
		if len(parsePids(s)) == 3 && ctx.Err() == nil {
			pids = parsePids(s)
			close(started)
			cancel()
		}
	}
	done := make(chan Result, 1)
	go func() {
		res, err := Bash{}.Run(ctx, callIn(t, t.TempDir(), map[string]any{"command": treeCommand}), progress)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	var res Result
	select {
	case res = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5s of cancellation")
	}
	select {
	case <-started:
	default:
		t.Fatalf("the process tree never reported its pids; output:\n%s", res.Output)
	}
	requireError(t, res, "command cancelled")
	requireDead(t, pids)
}

func TestBashTimeoutKillsProcessTree(t *testing.T) {
	t.Parallel()
	var pids []int
	killOnCleanup(t, &pids)
	res := run(t, Bash{}, callIn(t, t.TempDir(), map[string]any{"command": treeCommand, "timeout": 1}))
	pids = parsePids(res.Output)
	if len(pids) != 3 {
		t.Fatalf("expected 3 pids in output:\n%s", res.Output)
	}
	requireError(t, res, "timed out")
	requireDead(t, pids)
}

func TestBashEscalatesToSIGKILL(t *testing.T) {
	t.Parallel()
	var pids []int
	killOnCleanup(t, &pids)
	start := time.Now()
	// sleep inherits the ignored SIGTERM, so only SIGKILL ends it.
	cmd := `trap '' TERM; sleep 1000 & echo "pid $!"; wait`
	res := run(t, Bash{}, callIn(t, t.TempDir(), map[string]any{"command": cmd, "timeout": 0.3}))
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Run took %s", d)
	}
	pids = parsePids(res.Output)
	if len(pids) != 1 {
		t.Fatalf("expected a pid in output:\n%s", res.Output)
	}
	requireDead(t, pids)
}

func TestBashReturnsWhileBackgroundHoldsPipe(t *testing.T) {
	t.Parallel()
	var pids []int
	killOnCleanup(t, &pids)
	start := time.Now()
	res := run(t, Bash{}, callIn(t, t.TempDir(), map[string]any{"command": `sleep 1000 & echo "pid $!"`}))
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Run took %s with a background process holding the pipe", d)
	}
	pids = parsePids(res.Output)
	requireOK(t, res)
	requireContains(t, res.Output, "background processes kept the output open", "[exit code: 0]")
}

func TestBashHasNoControllingTerminal(t *testing.T) {
	t.Parallel()
	res := run(t, Bash{}, callIn(t, t.TempDir(), map[string]any{"command": "exec 3</dev/tty && echo has-tty || echo no-tty"}))
	requireContains(t, res.Output, "no-tty")
}
