//go:build linux

package proc_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/proc"
	"github.com/troupehq/troupe/testkit"
)

// startMarked starts `sleep 1000` through a Cmd carrying marker, reaped in
// a goroutine and killed when the test ends.
func startMarked(t *testing.T, marker string) *proc.Cmd {
	t.Helper()
	cmd := proc.Command("sleep", "1000")
	cmd.Marker = marker
	testkit.NoError(t, cmd.Start())
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	t.Cleanup(func() { cmd.Kill(); <-waited })
	return cmd
}

// setsidVictim starts a process in a session of its own that troupe did
// not start as a Cmd: what a forged record would name.
func setsidVictim(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("setsid", "sleep", "1000")
	testkit.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	// setsid forks when it is a group leader already; it is not here (the
	// test's child), so the pid is the new session's.
	testkit.Eventually(t, 5*time.Second, "the victim leads its own group", func() bool {
		return testkit.ProcessGroup(t, cmd.Process.Pid) == cmd.Process.Pid
	})
	return cmd.Process.Pid
}

func TestKillProvenKillsTheMarkedGroup(t *testing.T) {
	t.Parallel()
	cmd := startMarked(t, "m-1")
	p := cmd.Proof()
	if p.PID != cmd.PGID() || p.Start == 0 || p.Boot == "" {
		t.Fatalf("proof %+v of group %d", p, cmd.PGID())
	}
	testkit.NoError(t, proc.KillProven(p, "m-1"))
	testkit.Eventually(t, 5*time.Second, "the group gone", func() bool { return !proc.GroupAlive(p.PID) })
	if err := proc.KillProven(p, "m-1"); !errors.Is(err, proc.ErrGone) {
		t.Fatalf("a second kill: %v, want ErrGone", err)
	}
}

// The leader dies with troupe (its parent-death signal); what it started
// is still proven by the marker it inherited, and killed.
func TestKillProvenKillsAGroupWhoseLeaderIsGone(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	testkit.NoError(t, err)
	cmd := proc.Command("sh", "-c", `sleep 1000 & echo "pid $!"`)
	cmd.Marker, cmd.Stdout = "m-5", w
	testkit.NoError(t, cmd.Start())
	_ = w.Close()
	p := cmd.Proof()
	pids := readPids(t, r, 1)
	_ = cmd.Wait() // the leader is gone; the sleeper and the watcher remain
	t.Cleanup(func() { proc.KillGroup(p.PID); _ = r.Close() })
	if !proc.Alive(pids[0]) {
		t.Fatal("the sleeper died with its leader")
	}
	if err := proc.KillProven(p, "m-6"); !errors.Is(err, proc.ErrUnproven) {
		t.Fatalf("kill with another marker: %v, want ErrUnproven", err)
	}
	testkit.NoError(t, proc.KillProven(p, "m-5"))
	requireDead(t, pids[0])
	cmd.Release()
}

// Nothing short of the whole proof signals anything.
func TestKillProvenRefusesWhatItCannotProve(t *testing.T) {
	t.Parallel()
	cmd := startMarked(t, "m-2")
	p := cmd.Proof()
	for name, c := range map[string]struct {
		p      proc.Proof
		marker string
		gone   bool
	}{
		"another marker":     {p, "m-3", false},
		"no marker":          {p, "", false},
		"no start time":      {proc.Proof{PID: p.PID, Boot: p.Boot}, "m-2", false},
		"no boot":            {proc.Proof{PID: p.PID, Start: p.Start}, "m-2", false},
		"another start time": {proc.Proof{PID: p.PID, Start: p.Start + 1, Boot: p.Boot}, "m-2", true},
		"another boot":       {proc.Proof{PID: p.PID, Start: p.Start, Boot: "not-this-boot"}, "m-2", true},
		"init":               {proc.Proof{PID: 1, Start: p.Start, Boot: p.Boot}, "m-2", false},
		"every process":      {proc.Proof{PID: -1, Start: p.Start, Boot: p.Boot}, "m-2", false},
		"troupe's own group": {proc.Proof{PID: syscall.Getpgrp(), Start: p.Start, Boot: p.Boot}, "m-2", false},
		"troupe itself":      {proc.Proof{PID: os.Getpid(), Start: p.Start, Boot: p.Boot}, "m-2", false},
	} {
		err := proc.KillProven(c.p, c.marker)
		if c.gone && !errors.Is(err, proc.ErrGone) || !c.gone && !errors.Is(err, proc.ErrUnproven) {
			t.Errorf("%s: %v", name, err)
		}
	}
	time.Sleep(50 * time.Millisecond) // a signal sent would have landed
	if !proc.Alive(p.PID) {
		t.Fatal("a refused kill signalled a process")
	}
}

// A group recorded with its leader's true pid, start time and boot is
// still refused when the leader does not carry the marker: a setsid
// process troupe never started, named by someone who read its /proc.
func TestKillProvenChecksTheEnvironmentOfTheLeader(t *testing.T) {
	t.Parallel()
	victim := setsidVictim(t)
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	testkit.NoError(t, err)
	forged := proc.Proof{PID: victim, Start: startOf(t, victim), Boot: strings.TrimSpace(string(boot))}
	if err := proc.KillProven(forged, "m-4"); !errors.Is(err, proc.ErrUnproven) {
		t.Fatalf("kill of an unmarked group with its true start time: %v, want ErrUnproven", err)
	}
	time.Sleep(50 * time.Millisecond) // a signal sent would have landed
	if !proc.Alive(victim) {
		t.Fatal("the unmarked victim was signalled")
	}
}

// startOf reads pid's start time (field 22 of /proc/PID/stat).
func startOf(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	testkit.NoError(t, err)
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	start, err := strconv.ParseInt(f[19], 10, 64)
	testkit.NoError(t, err)
	return start
}
