package testkit

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// ProcessGroup reads a process's group id from /proc, for tests that
// check what a kill reached.
func ProcessGroup(t testing.TB, pid int) int {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// The command name may hold spaces and parentheses: count from the last ')'.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	g, err := strconv.Atoi(fields[2])
	if err != nil {
		t.Fatal(err)
	}
	return g
}
