package persistence

import (
	"bytes"
	"os"
	"strconv"
)

// procStat reads a process's state letter and start time (clock ticks
// since boot) from /proc; ok is false when the process does not exist.
func procStat(pid int) (state byte, start int64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name in field 2 may hold spaces and parentheses: fields
	// are counted from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(b[i+1:])
	// fields[0] is field 3 (state); starttime is field 22.
	if len(fields) < 20 || len(fields[0]) == 0 {
		return 0, 0, false
	}
	start, err = strconv.ParseInt(string(fields[19]), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], start, true
}

func procStart(pid int) int64 {
	_, start, _ := procStat(pid)
	return start
}

// processAlive reports whether pid still runs the process that started at
// start (0: any). A zombie has exited: only its parent has not reaped it.
func processAlive(pid int, start int64) bool {
	state, got, ok := procStat(pid)
	if !ok || state == 'Z' || state == 'X' {
		return false
	}
	return start == 0 || got == start
}
