//go:build linux

package mcp_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/testkit"
)

// A stdio server's process group goes with it: a helper it started in the
// background dies when the actor stops, though the server never killed it.
func TestStopKillsWhatTheServerStarted(t *testing.T) {
	sys := newSystem(t)
	pidFile := t.TempDir() + "/helper"
	cfg := mcp.ServerConfig{Name: "test", Command: "sh", Args: []string{"-c",
		`sleep 1000 >/dev/null 2>&1 & echo $! > "$0"; exec "$1"`, pidFile, testServer(t)}}
	pid := sys.Root.Spawn(mcp.Props(cfg, t.TempDir()))
	byName := mustTools(t, sys, pid)
	server := serverPID(t, byName["test__pid"])
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	helper, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if g := testkit.ProcessGroup(t, helper); g != server {
		t.Fatalf("helper in group %d, want the server's %d", g, server)
	}
	if err := sys.Root.StopFuture(pid).Wait(); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 5*time.Second, "server gone", func() bool { return gone(server) })
	testkit.Eventually(t, 5*time.Second, "helper gone", func() bool { return gone(helper) || zombie(helper) })
}

// zombie reports whether pid is dead but not yet reaped: in a container
// init may be slow to reap an orphan.
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}
