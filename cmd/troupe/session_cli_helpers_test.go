package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/pidfile"
	"github.com/troupehq/troupe/testkit"
)

// cliResult is one run of the troupe binary as a person types it.
type cliResult struct {
	stdout, stderr string
	code           int
}

// cli runs `troupe args...` with env added and stdin (never a terminal:
// CI has none), to its end.
func cli(t testing.TB, env []string, stdin string, args ...string) cliResult {
	t.Helper()
	r, err := runCLI(testkit.BuildTroupe(t), env, stdin, args...)
	testkit.NoError(t, err)
	return r
}

// cliNoFatal is cli for other goroutines than the test's: a failure to
// run is exit -1 with the error as stderr.
func cliNoFatal(bin string, env []string, args ...string) cliResult {
	r, err := runCLI(bin, env, "", args...)
	if err != nil {
		return cliResult{code: -1, stderr: err.Error()}
	}
	return r
}

// runCLI runs bin to its end.
func runCLI(bin string, env []string, stdin string, args ...string) (cliResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := cliResult{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
		return r, nil
	}
	return r, err
}

// ok checks the run exited 0 and returns its stdout.
func (r cliResult) ok(t testing.TB, what string) string {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", what, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

var subreaperOnce sync.Once

// adoptOrphans makes this test process the subreaper of its descendants:
// a daemon `troupe daemon start` detached (its parent gone) is reparented
// here rather than to the machine's init, so the test can reap it and
// read its exit status. It holds for the rest of the test binary: other
// orphans (a killed command's grandchildren) stay zombies here until it
// exits, which the package's liveness checks (alive, procAlive, gone)
// count as exited, as they must for an init that does not reap either.
func adoptOrphans(t testing.TB) {
	subreaperOnce.Do(func() {
		const prSetChildSubreaper = 36
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
			t.Fatalf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
		}
	})
}

// daemonPID reads the pid file of home's daemon.
func daemonPID(t testing.TB, home string) int {
	t.Helper()
	// A bare pid while it starts, Hydra's discovery record once it listens.
	pid, _, err := pidfile.Read(filepath.Join(home, "daemon.pid"))
	testkit.NoError(t, err)
	if pid == 0 {
		t.Fatalf("%s/daemon.pid names no pid", home)
	}
	return pid
}

// reapedDaemon is the pid of home's detached daemon, killed and reaped
// when the test ends (reapOnCleanup).
func reapedDaemon(t testing.TB, home string) int {
	t.Helper()
	pid := daemonPID(t, home)
	reapOnCleanup(t, pid)
	return pid
}

// reapOnCleanup kills and reaps the detached daemon pid when the test
// ends, passed or failed, if it still runs.
func reapOnCleanup(t testing.TB, pid int) {
	t.Cleanup(func() {
		if procAlive(pid) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	})
}

// procAlive reports pid is a process that has not exited.
func procAlive(pid int) bool {
	st, ok := procStat(pid)
	return ok && st.state != "Z"
}

type stat struct {
	state      string
	ppid, pgrp int
}

// procStat reads /proc/PID/stat.
func procStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	return stat{state: f[0], ppid: ppid, pgrp: pgrp}, true
}

// descendants are the live processes whose parent or process group is pid.
func descendants(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == pid {
			continue
		}
		if st, ok := procStat(p); ok && st.state != "Z" && (st.ppid == pid || st.pgrp == pid) {
			out = append(out, p)
		}
	}
	return out
}
