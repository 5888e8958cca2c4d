//go:build linux

package tools

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// isolateProcess puts the shell in a new session, and so in its own process
// group, so the whole tree it spawns can be signalled at once. A new session
// rather than bare Setpgid also detaches it from the runtime's controlling
// terminal: a background-group child that reads the terminal (a password or
// credential prompt) would be stopped by SIGTTIN and hang until the timeout;
// without a terminal the read fails at once. Pdeathsig kills the shell if the
// runtime dies; it fires when the forking OS thread exits, which for Go means
// only when a goroutine that locked its thread exits, and exec never locks.
// Pdeathsig reaches the shell only; shellCommand's watcher kills the rest.
func isolateProcess(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// killTree sends SIGTERM to the shell's process group, giving its members
// grace to exit cleanly, then SIGKILL to whatever remains.
func killTree(cmd *exec.Cmd, grace time.Duration) {
	pgid := cmd.Process.Pid
	if err := syscall.Kill(-pgid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !groupAlive(pgid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// groupAlive reports whether group pgid has a member that is not a zombie.
// kill(-pgid, 0) alone is not enough: killed orphans stay zombies until init
// reaps them, which in some containers takes seconds, and waiting for that
// would turn every kill into a full grace period.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, pgrp, ok := procStat(pid); ok && pgrp == pgid && state != 'Z' {
			return true
		}
	}
	return false
}

// procStat reads a process's state letter and process group from
// /proc/PID/stat, whose fields follow the parenthesised command name.
func procStat(pid int) (state byte, pgrp int, ok bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 3 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(fields[2])
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], pgrp, true
}
