package pgtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the kernel's USER_HZ, what /proc/PID/stat counts CPU in.
const clockTick = 10 * time.Millisecond

// CPU is the user and system CPU the server has used so far: the
// postmaster and every process it runs now (each connection's backend,
// the background workers), read from /proc. A backend that exited took
// its count with it, so compare readings over one set of connections.
func (s *Server) CPU() time.Duration {
	pm := s.cmd.Process.Pid
	total := procCPU(pm)
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f := statFields(raw)
		if len(f) > 12 && f[1] == strconv.Itoa(pm) {
			total += ticks(f[11], f[12])
		}
	}
	return total
}

func procCPU(pid int) time.Duration {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := statFields(raw)
	if len(f) <= 12 {
		return 0
	}
	return ticks(f[11], f[12])
}

// statFields are the fields after the command name (which may hold
// spaces and parentheses): [0] the state, [1] the parent's pid, [11]
// utime, [12] stime.
func statFields(raw []byte) []string {
	return strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
}

func ticks(utime, stime string) time.Duration {
	u, _ := strconv.ParseInt(utime, 10, 64)
	s, _ := strconv.ParseInt(stime, 10, 64)
	return time.Duration(u+s) * clockTick
}
