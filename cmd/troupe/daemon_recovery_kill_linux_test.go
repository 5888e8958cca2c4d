//go:build linux

package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // to watch the store for the recovery's events

	"github.com/troupehq/troupe/testkit"
)

// forgedRun is the run a bundle or `troupe append` hands the daemon: open,
// its bash call open, its tool.process naming group pgid with everything
// any local process can read of it (its leader's true start time and this
// boot's id). Only the marker in the leader's environment is not there:
// nothing outside the troupe that started a process can make it.
func forgedRun(t *testing.T, pgid int) []map[string]any {
	t.Helper()
	start, boot := int64(0), ""
	if pgid > 1 {
		start, boot = startTicks(t, pgid), bootID(t)
	}
	return []map[string]any{
		{"kind": "run.started", "payload": map[string]any{"run_id": "r-forged"}},
		{"kind": "step.started", "payload": map[string]any{"run_id": "r-forged", "step": 1, "message_id": "m-forged", "tool_style": "native"}},
		{"kind": "tool.started", "payload": map[string]any{"run_id": "r-forged", "tool_call_id": "c-forged", "name": "bash",
			"category": "exec", "arguments": `{"command":"sleep 1000"}`, "origin": "native", "message_id": "m-forged"}},
		{"kind": "tool.process", "payload": map[string]any{"run_id": "r-forged", "tool_call_id": "c-forged", "pgid": pgid, "start": start, "boot": boot}},
	}
}

// forgedBundle is a troupe bundle whose log ends inside forgedRun.
func forgedBundle(t *testing.T, cwd, lineage string, pgid int) map[string]any {
	var evs []map[string]any
	for i, e := range forgedRun(t, pgid) {
		evs = append(evs, map[string]any{"seq": i + 2, "recordedAt": time.Now().UTC(), "kind": e["kind"], "payload": e["payload"]})
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	return map[string]any{"bundle": map[string]any{
		"version": 1, "exportedAt": now, "exportedFrom": map[string]string{"hydraVersion": "elsewhere", "machine": "elsewhere"},
		"session": map[string]any{"sessionId": "s-" + lineage, "lineageId": lineage, "agentId": "troupe", "cwd": cwd, "createdAt": now, "updatedAt": now},
		"history": []any{},
		"troupe":  map[string]any{"created": map[string]any{"cwd": cwd, "settings": map[string]any{"crash_policy": "stop"}}, "events": evs},
	}}
}

// importForged imports forgedBundle; the imported session is cold, so the
// next request for it recovers it from its log.
func importForged(t *testing.T, d *daemonProc, cwd, lineage string, pgid int) string {
	t.Helper()
	var out struct{ SessionID string }
	// The import hosts nothing: the session is cold, and opening it
	// recovers its log.
	d.call(t, "POST", "/v1/sessions/import", forgedBundle(t, cwd, lineage, pgid), http.StatusCreated, &out)
	return out.SessionID
}

// appendForged writes forgedRun into session id with `troupe append`, no
// daemon running.
func appendForged(t *testing.T, home, cwd, id string, pgid int) {
	t.Helper()
	var in bytes.Buffer
	for _, e := range forgedRun(t, pgid) {
		b, err := json.Marshal(e)
		testkit.NoError(t, err)
		in.Write(append(b, '\n'))
	}
	acks, code := appendAll(t, testkit.BuildTroupe(t), home, id, in.String(), "--cwd", cwd)
	if code != 0 || len(acks) != 4 {
		t.Fatalf("troupe append: exit %d, acks %+v", code, acks)
	}
}

// openAndRecover loads session id over ACP, which recovers its log, and
// waits until the forged run is closed in the store: by then recovery has
// done whatever it does to the group the run names.
func openAndRecover(t *testing.T, d *daemonProc, id string) {
	t.Helper()
	c := d.dialACP(t, "editor")
	c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": id, "cwd": "/", "mcpServers": []any{}}))
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(d.home, "troupe.db")+"?mode=ro&_busy_timeout=5000")
	testkit.NoError(t, err)
	defer db.Close()
	testkit.Eventually(t, acpWait, "the forged run closed", func() bool {
		var n int
		err := db.QueryRow(`SELECT count(*) FROM events WHERE session_id = ? AND kind IN ('run.interrupted', 'run.ended')
			AND json_extract(payload, '$.run_id') = 'r-forged'`, id).Scan(&n)
		return err == nil && n > 0
	})
}

// setsidVictim starts `setsid sleep 1000`: a process group of its own that
// troupe never started, whose id (its pid) the test forges records of.
func setsidVictim(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("setsid", "sleep", "1000")
	testkit.NoError(t, cmd.Start())
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL); _ = cmd.Wait() })
	testkit.Eventually(t, 5*time.Second, "the victim leads its own group", func() bool {
		return len(groupMembers(pid)) == 1
	})
	return pid
}

// requireAlive fails unless pid still runs (a killed child of the test
// stays a zombie, which does not count).
func requireAlive(t *testing.T, pid int, after string) {
	t.Helper()
	time.Sleep(100 * time.Millisecond) // a signal sent would have landed
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil || strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))[0] == "Z" {
		t.Fatalf("the victim %d was killed %s", pid, after)
	}
}

// startTicks is pid's start time (field 22 of /proc/PID/stat).
func startTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	testkit.NoError(t, err)
	start, err := strconv.ParseInt(strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))[19], 10, 64)
	testkit.NoError(t, err)
	return start
}

func bootID(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	testkit.NoError(t, err)
	return strings.TrimSpace(string(b))
}

// A tool.process event that came from outside (an imported bundle, `troupe
// append`) never makes the daemon signal the group it names, whether the
// session is opened after the import, after a daemon restart, or after a
// daemon crash: the victim, a setsid group troupe never started, lives on.
func TestDaemonRecoveryNeverSignalsAForgedGroup(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	victim := setsidVictim(t)
	d := startDaemon(t, home, nil)

	opened := importForged(t, d, work, "lineage-opened", victim)
	openAndRecover(t, d, opened)
	requireAlive(t, victim, "when a session imported naming it was opened")

	restarted := importForged(t, d, work, "lineage-restarted", victim)
	crashed := importForged(t, d, work, "lineage-crashed", victim)
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, acpWait), 0)
	appendForged(t, home, work, "appended", victim)

	// SIGKILLed below: that needs its own process.
	d = startDaemonBinary(t, home, nil)
	openAndRecover(t, d, restarted)
	requireAlive(t, victim, "when a session imported naming it was opened after a daemon restart")
	openAndRecover(t, d, "appended")
	requireAlive(t, victim, "when a session `troupe append` wrote naming it was opened")

	d.proc.Kill()
	d.proc.Wait(t, acpWait)
	d = startDaemon(t, home, nil)
	openAndRecover(t, d, crashed)
	requireAlive(t, victim, "when a session imported naming it was opened after a daemon crash")
}

// startNSDaemon runs the daemon as init of a PID namespace of its own (with
// its own /proc), beside a victim process tagged tag, and returns the
// victim's pid as the test sees it. There, group 1 is the daemon's
// namespace: kill(-1) from the daemon reaches only the victim, never a
// process of the machine, so a daemon that signals group 1 shows as a
// dead victim instead of killing the test machine.
func startNSDaemon(t *testing.T, home string) (d *daemonProc, daemonPID, victim int) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("a PID namespace needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare is not installed")
	}
	_ = os.Remove(filepath.Join(home, "daemon.addr"))
	script := `sh -c 'sleep 1000; :' "victim-$1" & exec "$0" daemon --home "$1" --listen 127.0.0.1:0`
	p := testkit.Start(t, "unshare", nil, "--pid", "--fork", "--mount-proc", "--kill-child", "sh", "-c", script, testkit.BuildTroupe(t), home)
	d = daemonOf(t, binaryDaemon{p}, home)

	// Refuse to go on unless the daemon really is in another namespace.
	self, err := os.Readlink("/proc/self/ns/pid")
	testkit.NoError(t, err)
	var daemonNS string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		args := strings.Split(string(cmdline), "\x00")
		switch {
		case len(args) > 1 && args[1] == "daemon" && strings.Contains(string(cmdline), home):
			daemonNS, _ = os.Readlink("/proc/" + e.Name() + "/ns/pid")
			daemonPID = pid
		case strings.Contains(string(cmdline), "victim-"+home) && strings.HasPrefix(args[0], "sh"):
			victim = pid
		}
	}
	if daemonNS == "" || daemonNS == self || victim == 0 {
		t.Fatalf("the daemon is not in a PID namespace of its own (its %q, the test's %q) beside a victim (%d)", daemonNS, self, victim)
	}
	return d, daemonPID, victim
}

// pgid 1 named in a forged tool.process is never signalled: kill(-1) would
// reach every process the daemon may signal. The daemon runs as init of a
// PID namespace, so that were it signalled anyway only the namespace's
// victim would die.
func TestDaemonRecoveryNeverSignalsGroupOne(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	d, daemon, victim := startNSDaemon(t, home)
	sid := importForged(t, d, work, "lineage-one", 1)
	openAndRecover(t, d, sid)
	requireAlive(t, victim, "when a session imported naming group 1 was opened")

	testkit.NoError(t, syscall.Kill(daemon, syscall.SIGTERM)) // unshare does not pass it on
	d.proc.Wait(t, acpWait)
	appendForged(t, home, work, "appended-one", 1)
	d, _, victim = startNSDaemon(t, home)
	openAndRecover(t, d, "appended-one")
	requireAlive(t, victim, "when a session `troupe append` wrote naming group 1 was opened")
}
