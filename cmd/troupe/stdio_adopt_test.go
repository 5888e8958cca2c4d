package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// A llama-server outlives a `troupe stdio` killed by SIGKILL, and the next
// one adopts it: the same program, listed as started, and server.stop ends
// it, leaving no process.
func TestStdioAdoptsServersAfterSIGKILL(t *testing.T) {
	b := startBridge(t)
	result(t, first(b.call("1", "config.init", `{"name":"tiny","model_path":"aladar/tiny/tiny.gguf"}`)))
	started := result(t, first(b.call("2", "server.start", `{"config":"tiny"}`)))
	pid, port := int(started["pid"].(float64)), int(started["port"].(float64))
	// It outlives troupe by design: the test must not leave it behind.
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })

	b.p.Kill()
	b.p.Wait(t, 10*time.Second)
	health := func() int {
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/health")
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := health(); code != 200 {
		t.Fatalf("the server did not outlive troupe: /health %d", code)
	}
	if _, err := os.Stat(filepath.Join(b.home, "logs", "llama-server", "tiny.log")); err != nil {
		t.Fatalf("the server's log: %v", err)
	}

	b2 := b.again()
	id := 0
	testkit.Eventually(t, 10*time.Second, "the server adopted and started", func() bool {
		id++
		l := result(t, first(b2.call("l"+strconv.Itoa(id), "server.list", `{}`)))["servers"].([]any)
		if len(l) != 1 {
			return false
		}
		s := l[0].(map[string]any)
		return s["status"] == "started" && int(s["pid"].(float64)) == pid && int(s["port"].(float64)) == port
	})
	// A start finds it running rather than starting another.
	if again := result(t, first(b2.call("3", "server.start", `{"config":"tiny"}`))); int(again["pid"].(float64)) != pid {
		t.Fatalf("server.start ran another program: %v", again)
	}
	if st := result(t, first(b2.call("4", "server.stop", `{"config":"tiny"}`))); st["status"] != "stopped" {
		t.Fatalf("server.stop: %v", st)
	}
	// Not troupe's child: whoever reaps orphans here may leave a zombie
	// for a moment, which runs nothing.
	testkit.Eventually(t, 5*time.Second, "the adopted server gone", func() bool { return !running(pid) })
	b2.p.Stdin.Close()
	if code := b2.p.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, b2.p.Stderr())
	}
}

// running reports whether pid is a process that runs: in /proc and not a
// zombie.
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}
