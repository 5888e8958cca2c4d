//go:build refbench

package refbench

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// daemon is one running daemon: its /acp WebSocket URL, the home's token
// and the process whose CPU time and memory are measured.
type daemon struct {
	name  string
	ws    string
	token string
	pid   int
}

// kind starts a daemon of one implementation on a fresh home whose
// configuration names agent as "scripted".
type kind struct {
	name  string
	start func(t *testing.T, agent, state string) daemon
}

// agentConfig is the `agents` map both daemons read from config.json.
func agentConfig(agent, state string) map[string]any {
	return map[string]any{"scripted": map[string]any{
		"command": agent, "args": []string{"--from-config"}, "env": map[string]string{"ACPAGENT_STATE": state},
	}}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	testkit.NoError(t, err)
	testkit.NoError(t, os.WriteFile(path, b, 0o600))
}

// troupeKind is `troupe daemon`, built from this tree.
func troupeKind(bin string) kind {
	return kind{name: "troupe", start: func(t *testing.T, agent, state string) daemon {
		home := t.TempDir()
		writeJSON(t, filepath.Join(home, "config.json"), map[string]any{"agents": agentConfig(agent, state)})
		cmd := exec.Command(bin, "daemon", "--home", home, "--listen", "127.0.0.1:0")
		cmd.Env = append(os.Environ(), "TROUPE_HOME="+home)
		startLogged(t, cmd, home)
		var url string
		testkit.Eventually(t, 30*time.Second, "troupe's address file", func() bool {
			b, err := os.ReadFile(filepath.Join(home, "daemon.addr"))
			url = strings.TrimSpace(string(b))
			return err == nil && url != ""
		})
		return daemon{name: "troupe", ws: "ws" + strings.TrimPrefix(url, "http") + "/acp", token: readToken(t, home), pid: cmd.Process.Pid}
	}}
}

// hydraKind is Hydra's daemon (`hydra-acp daemon start --foreground`, so
// the process measured is the daemon's own), on a free loopback port.
func hydraKind(node, cli string) kind {
	return kind{name: "hydra", start: func(t *testing.T, agent, state string) daemon {
		home := t.TempDir()
		port := freePort(t)
		cfg := map[string]any{"host": "127.0.0.1", "port": port}
		// Hydra keeps the last sessionHistoryMaxEntries (10,000 by
		// default) of a session's updates for replay; the rest go to an
		// archive attach does not read. REFBENCH_HYDRA_HISTORY raises it.
		if s := os.Getenv("REFBENCH_HYDRA_HISTORY"); s != "" {
			n, err := strconv.Atoi(s)
			testkit.NoError(t, err)
			cfg["sessionHistoryMaxEntries"] = n
		}
		writeJSON(t, filepath.Join(home, "config.json"), map[string]any{"daemon": cfg, "agents": agentConfig(agent, state)})
		cmd := exec.Command(node, cli, "daemon", "start", "--foreground")
		// HOME too: Hydra reads and writes other state under it.
		cmd.Env = append(os.Environ(), "HYDRA_ACP_HOME="+home, "HOME="+home)
		startLogged(t, cmd, home)
		base := fmt.Sprintf("http://127.0.0.1:%d", port)
		testkit.Eventually(t, 60*time.Second, "Hydra's /v1/health", func() bool {
			res, err := http.Get(base + "/v1/health")
			if err != nil {
				return false
			}
			res.Body.Close()
			return res.StatusCode == http.StatusOK
		})
		return daemon{name: "hydra", ws: fmt.Sprintf("ws://127.0.0.1:%d/acp", port), token: readToken(t, home), pid: cmd.Process.Pid}
	}}
}

// startLogged starts cmd in its own process group with its output in a
// file of home (a pipe nobody drains would stall a daemon that logs to
// stdout); the test's end stops it with SIGTERM, then its group with
// SIGKILL, so no agent it started outlives the run.
func startLogged(t *testing.T, cmd *exec.Cmd, home string) {
	t.Helper()
	out, err := os.Create(filepath.Join(home, "refbench-daemon.log"))
	testkit.NoError(t, err)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	testkit.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		out.Close()
		if t.Failed() {
			b, _ := os.ReadFile(out.Name())
			t.Logf("%s's output:\n%s", cmd.Path, tail(b, 4000))
		}
	})
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func readToken(t *testing.T, home string) string {
	t.Helper()
	var tok []byte
	testkit.Eventually(t, 10*time.Second, "the home's auth-token", func() bool {
		var err error
		tok, err = os.ReadFile(filepath.Join(home, "auth-token"))
		return err == nil && len(strings.TrimSpace(string(tok))) > 0
	})
	return strings.TrimSpace(string(tok))
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	testkit.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// cpu is a process's user and system time from /proc/<pid>/stat (its own
// threads, not its children: the agents are not the daemon's cost).
func cpu(t *testing.T, pid int) time.Duration {
	t.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	testkit.NoError(t, err)
	// The command name may hold spaces: count from the last ')'.
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	utime, err := strconv.ParseInt(fields[11], 10, 64)
	testkit.NoError(t, err)
	stime, err := strconv.ParseInt(fields[12], 10, 64)
	testkit.NoError(t, err)
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond
}

// memMB reads a kB field (VmRSS, VmHWM) of a process's /proc status, in MB.
func memMB(t *testing.T, pid int, field string) float64 {
	t.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	testkit.NoError(t, err)
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			testkit.NoError(t, err)
			return kb / 1024
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
