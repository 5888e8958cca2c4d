//go:build linux

package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// bootID is this boot's random id: a start time is counted from boot, so
// it proves nothing about a process of another boot.
var bootID = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
})

// Proof records the started command: read at once, while troupe has not
// reaped it, so the pid cannot have been reused yet. It is the zero Proof
// before Start or when /proc cannot tell.
func (c *Cmd) Proof() Proof {
	if c.Process == nil {
		return Proof{}
	}
	pid := c.Process.Pid
	st, ok := readStat(pid)
	if !ok || bootID() == "" {
		return Proof{}
	}
	return Proof{PID: pid, Start: st.start, Boot: bootID()}
}

// KillProven sends SIGKILL to the process group p names, only once all of
// it holds: p is a proof (pid above 1, not this process or its group) of
// this boot, and the group still is the one the Cmd started. While the
// leader lives, that is: the pid runs the process that started at
// p.Start, still leads its group, and carries MarkerEnv=marker in its
// environment, which only a Cmd started with that Marker does. Once the
// leader is gone (its parent-death signal takes it with troupe), the group
// id cannot have been handed out again while the group has members, so
// every member must carry the marker and have started no earlier than the
// leader. It returns ErrGone when nothing of the group is left, and an
// error wrapping ErrUnproven when anything else does not hold; nothing is
// signalled then.
func KillProven(p Proof, marker string) error {
	if refusedGroup(p.PID) {
		return fmt.Errorf("%w: group %d is never signalled by id", ErrUnproven, p.PID)
	}
	if marker == "" || p.Start == 0 || p.Boot == "" {
		return fmt.Errorf("%w: group %d: no proof recorded", ErrUnproven, p.PID)
	}
	if p.Boot != bootID() {
		return ErrGone // started before this boot: whatever it was died with it
	}
	want := MarkerEnv + "=" + marker
	st, ok := readStat(p.PID)
	switch {
	case ok && st.state != 'Z' && st.state != 'X' && st.start == p.Start:
		if st.pgrp != p.PID {
			return fmt.Errorf("%w: process %d no longer leads group %d", ErrUnproven, p.PID, p.PID)
		}
		if !hasEnv(p.PID, want) {
			return fmt.Errorf("%w: process %d does not carry its marker", ErrUnproven, p.PID)
		}
	case ok && st.start != p.Start:
		// The pid runs another process: it was free, so no group had
		// kept its number either.
		return ErrGone
	default:
		if err := checkMembers(p, want); err != nil {
			return err
		}
	}
	if err := syscall.Kill(-p.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill group %d: %w", p.PID, err)
	}
	return nil
}

// checkMembers proves a group whose leader is gone: it has members, and
// each carries the marker (entry) and started no earlier than the leader.
func checkMembers(p Proof, entry string) error {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return fmt.Errorf("%w: group %d: %v", ErrUnproven, p.PID, err)
	}
	members := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := readStat(pid)
		if !ok || st.pgrp != p.PID || st.state == 'Z' || st.state == 'X' {
			continue
		}
		if st.start < p.Start || !hasEnv(pid, entry) {
			return fmt.Errorf("%w: process %d of group %d does not carry its marker", ErrUnproven, pid, p.PID)
		}
		members++
	}
	if members == 0 {
		return ErrGone
	}
	return nil
}

// hasEnv reports whether process pid's environment holds entry exactly.
// Only the process's own user (or root) may read it: a process another
// user runs never passes.
func hasEnv(pid int, entry string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if string(kv) == entry {
			return true
		}
	}
	return false
}

// stat is what troupe reads of /proc/PID/stat.
type stat struct {
	state byte
	pgrp  int
	start int64 // clock ticks since boot
}

// readStat reads /proc/PID/stat, whose fields follow the parenthesised
// command name (which may hold spaces and parentheses: fields are counted
// from the last ')').
func readStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	// fields[0] is field 3 (state), fields[2] field 5 (pgrp), fields[19]
	// field 22 (starttime).
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 20 || len(fields[0]) != 1 {
		return stat{}, false
	}
	pgrp, err := strconv.Atoi(fields[2])
	if err != nil {
		return stat{}, false
	}
	start, err := strconv.ParseInt(fields[19], 10, 64)
	if err != nil {
		return stat{}, false
	}
	return stat{state: fields[0][0], pgrp: pgrp, start: start}, true
}
