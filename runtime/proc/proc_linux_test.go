//go:build linux

package proc_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/proc"
	"github.com/troupehq/troupe/testkit"
)

// tree starts a child and a grandchild (through a nested shell) that would
// sleep forever, printing their pids, then waits.
const tree = `sleep 1000 & echo "pid $!"
sh -c 'sleep 1000 & echo "pid $!"; wait' &
echo "pid $!"
wait`

// startTree runs tree through a Cmd and returns it with the three pids it
// printed. The leader is reaped as soon as it exits; the group is killed
// when the test ends.
func startTree(t *testing.T) (*proc.Cmd, []int) {
	t.Helper()
	cmd, out := start(t, "sh", "-c", tree)
	return cmd, readPids(t, out, 3)
}

// start starts a Cmd whose stdout is the returned pipe, reaps it in a
// goroutine and kills its group when the test ends.
func start(t *testing.T, name string, args ...string) (*proc.Cmd, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := proc.Command(name, args...)
	cmd.Stdout = w
	err = cmd.Start()
	_ = w.Close()
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	t.Cleanup(func() { cmd.Kill(); <-waited; _ = r.Close() })
	return cmd, r
}

func readPids(t *testing.T, out io.Reader, n int) []int {
	t.Helper()
	var pids []int
	lines := bufio.NewScanner(out)
	for len(pids) < n && lines.Scan() {
		if p, ok := strings.CutPrefix(lines.Text(), "pid "); ok {
			pid, err := strconv.Atoi(p)
			if err != nil {
				t.Fatalf("bad pid line %q", lines.Text())
			}
			pids = append(pids, pid)
		}
	}
	if len(pids) != n {
		t.Fatalf("read pids %v, want %d", pids, n)
	}
	return pids
}

func requireDead(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		testkit.Eventually(t, 5*time.Second, fmt.Sprintf("process %d gone", pid), func() bool { return !proc.Alive(pid) })
	}
}

func TestCommandRunsInItsOwnGroup(t *testing.T) {
	t.Parallel()
	cmd, pids := startTree(t)
	if cmd.PGID() != cmd.Process.Pid {
		t.Fatalf("PGID %d, pid %d", cmd.PGID(), cmd.Process.Pid)
	}
	for _, pid := range append(pids, cmd.Process.Pid) {
		if g := testkit.ProcessGroup(t, pid); g != cmd.PGID() {
			t.Errorf("process %d is in group %d, want %d", pid, g, cmd.PGID())
		}
	}
	if g := syscall.Getpgrp(); g == cmd.PGID() {
		t.Errorf("the command shares the test's group %d", g)
	}
}

// The shell in front of the command execs it: same pid, its arguments
// untouched, its exit status and signal reported as its own.
func TestCommandIsExecedAsIs(t *testing.T) {
	t.Parallel()
	cmd := proc.Command("sh", "-c", `echo "$$|$0|$1|$2"; exit 7`, "zero", "a b", `$HOME "q"`)
	var b strings.Builder
	cmd.Stdout = &b
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Fatalf("wait: %v, want exit status 7", err)
	}
	want := fmt.Sprintf("%d|zero|a b|$HOME \"q\"\n", cmd.Process.Pid)
	if b.String() != want {
		t.Errorf("output %q, want %q", b.String(), want)
	}

	killed := proc.Command("sh", "-c", `kill -9 $$`)
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	_ = killed.Wait()
	if ws := killed.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("state %s, want killed", killed.ProcessState)
	}
}

func TestStartFailsLikeExec(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, want string }{
		{filepath.Join(dir, "missing"), "fork/exec " + filepath.Join(dir, "missing") + ": no such file or directory"},
		{plain, "fork/exec " + plain + ": permission denied"},
		{dir, "fork/exec " + dir + ": permission denied"},
		{"troupe-no-such-command", `exec: "troupe-no-such-command": executable file not found in $PATH`},
	}
	for _, tc := range cases {
		cmd := proc.Command(tc.name)
		err := cmd.Start()
		if err == nil || err.Error() != tc.want {
			t.Errorf("Start %s: %v, want %q", tc.name, err, tc.want)
		}
		cmd.Release() // harmless after a failed start
	}
	// A relative path is relative to Dir, as with exec.
	if err := os.WriteFile(filepath.Join(dir, "ok"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := proc.Command("./ok")
	cmd.Dir = dir
	if err := cmd.Run(); err != nil {
		t.Errorf("run ./ok in %s: %v", dir, err)
	}
	missing := proc.Command("sh", "-c", "true")
	missing.Dir = filepath.Join(dir, "gone")
	if err := missing.Start(); err == nil || !strings.Contains(err.Error(), "/sh: no such file") {
		t.Errorf("start in a missing directory: %v", err)
	}
}

func TestCommandHasNoControllingTerminal(t *testing.T) {
	t.Parallel()
	cmd := proc.Command("sh", "-c", "(exec 3</dev/tty) 2>/dev/null && echo has-tty || echo no-tty")
	var b strings.Builder
	cmd.Stdout = &b
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if strings.TrimSpace(b.String()) != "no-tty" {
		t.Errorf("output %q, want no-tty", b.String())
	}
}

// A caller waiting on the embedded exec.Cmd holds nothing else of the
// Cmd: the collector must not close troupe's end of the watcher pipe, which
// would have the watcher kill a healthy command (it once did, in CI).
func TestCommandOutlivesItsCmdBeingCollected(t *testing.T) {
	t.Parallel()
	cmd := proc.Command("sh", "-c", "sleep 0.3; echo alive")
	var b strings.Builder
	cmd.Stdout = &b
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inner, pgid := cmd.Cmd, cmd.PGID()
	t.Cleanup(func() { proc.KillGroup(pgid) }) // the watcher, never released
	cmd = nil
	for range 5 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	if err := inner.Wait(); err != nil {
		t.Fatalf("wait: %v (killed by its watcher?)", err)
	}
	if got := strings.TrimSpace(b.String()); got != "alive" {
		t.Errorf("output %q, want alive", got)
	}
}

func TestKillTakesTheWholeGroup(t *testing.T) {
	t.Parallel()
	cmd, pids := startTree(t)
	cmd.Kill()
	requireDead(t, pids...)
	testkit.Eventually(t, 5*time.Second, "group gone", func() bool { return !proc.GroupAlive(cmd.PGID()) })
}

func TestKillGroupByID(t *testing.T) {
	t.Parallel()
	cmd, pids := startTree(t)
	proc.KillGroup(cmd.PGID())
	requireDead(t, pids...)
	proc.KillGroup(cmd.PGID()) // gone already: nothing happens
	proc.KillGroup(0)          // never "every process in my group"
	if !proc.Alive(os.Getpid()) {
		t.Fatal("KillGroup(0) reached the test")
	}
}

func TestTerminateEscalatesToSIGKILL(t *testing.T) {
	t.Parallel()
	// sleep inherits the ignored SIGTERM, so only SIGKILL ends it.
	cmd, out := start(t, "sh", "-c", `trap '' TERM; sleep 1000 & echo "pid $!"; wait`)
	pids := readPids(t, out, 1)
	cmd.Terminate(200 * time.Millisecond)
	requireDead(t, pids...)
}

func TestTerminateIsQuickForAGroupThatObeys(t *testing.T) {
	t.Parallel()
	cmd, pids := startTree(t)
	cmd.Terminate(time.Minute) // returns once the group is gone, not after a minute
	requireDead(t, pids...)
}

func TestReleaseLeavesTheGroupRunning(t *testing.T) {
	t.Parallel()
	cmd, out := start(t, "sh", "-c", `sleep 1000 >/dev/null 2>&1 & echo "pid $!"`)
	pids := readPids(t, out, 1)
	testkit.Eventually(t, 5*time.Second, "the shell exited", func() bool { return !proc.Alive(cmd.Process.Pid) })
	cmd.Release()
	time.Sleep(100 * time.Millisecond) // the watcher, were it to kill, would do so at once
	if !proc.Alive(pids[0]) {
		t.Fatal("the background sleep died on release")
	}
	if !proc.GroupAlive(cmd.PGID()) {
		t.Fatal("the group died on release")
	}
}

func TestAlive(t *testing.T) {
	t.Parallel()
	if !proc.Alive(os.Getpid()) {
		t.Error("the test itself is not alive")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if proc.Alive(cmd.Process.Pid) {
		t.Errorf("reaped process %d alive", cmd.Process.Pid)
	}
	if proc.Alive(0) || proc.Alive(-1) || proc.GroupAlive(0) {
		t.Error("non-positive ids are alive")
	}
}

// helperEnv makes the test binary, re-executed, start tree through a Cmd
// and print its group and pids: a stand-in for troupe that the test can
// SIGKILL.
const helperEnv = "TROUPE_PROC_HELPER"

func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("runs only as the helper of TestGroupDiesWithItsHost")
	}
	cmd := proc.Command("sh", "-c", tree)
	cmd.Stdout = os.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("group %d\n", cmd.PGID())
	_ = cmd.Wait()
}

// SIGKILL of the process that started a Cmd takes the Cmd's whole process
// group with it, grandchildren included.
func TestGroupDiesWithItsHost(t *testing.T) {
	t.Parallel()
	host := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	host.Env = append(os.Environ(), helperEnv+"=1")
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = host.Process.Kill(); _ = host.Wait() })
	lines := bufio.NewScanner(out)
	group := 0
	var pids []int
	// The helper's group line and the tree's pid lines race on one pipe.
	for (group == 0 || len(pids) < 3) && lines.Scan() {
		line := lines.Text()
		if n, ok := strings.CutPrefix(line, "group "); ok {
			group, _ = strconv.Atoi(n)
		}
		if n, ok := strings.CutPrefix(line, "pid "); ok {
			pid, _ := strconv.Atoi(n)
			pids = append(pids, pid)
		}
	}
	if group == 0 || len(pids) != 3 {
		t.Fatalf("the helper reported group %d and pids %v", group, pids)
	}
	t.Cleanup(func() { proc.KillGroup(group) })
	if err := host.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = host.Wait()
	requireDead(t, pids...)
	testkit.Eventually(t, 5*time.Second, "group gone", func() bool { return !proc.GroupAlive(group) })
}
