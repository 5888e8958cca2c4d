package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// startDaemonWithFDLimit is startDaemon under a soft and hard limit of
// limit open files (the daemon raises its soft limit to the hard one, so
// both are set).
func startDaemonWithFDLimit(t *testing.T, home string, limit int) *daemonProc {
	t.Helper()
	bin := testkit.BuildTroupe(t)
	_ = os.Remove(filepath.Join(home, "daemon.addr"))
	p := testkit.Start(t, "/bin/sh", nil, "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, limit),
		bin, "daemon", "--home", home, "--listen", "127.0.0.1:0")
	d := daemonOf(t, binaryDaemon{p}, home)
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.Cmd.Process.Pid) + "/limits")
	testkit.NoError(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); strings.HasPrefix(l, "Max open files") && (f[3] != strconv.Itoa(limit) || f[4] != strconv.Itoa(limit)) {
			t.Fatalf("the daemon's limits: %s", l)
		}
	}
	return d
}

// slowClient opens connections that never finish a request and have no
// token, one after the other until stop: headers cut short, a login's
// body cut short, a protected route's body cut short. It reopens a
// connection the daemon closed after a pause.
func slowClient(addr string, kind int, stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	reqs := []string{
		"GET /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ",
		"POST /v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{\"password\":\"",
		"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"cwd\":\"",
	}
	for {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err == nil {
			_, _ = c.Write([]byte(reqs[kind%len(reqs)]))
			// Trickle a byte a second until the daemon closes it.
			done := make(chan struct{})
			go func() {
				_, _ = bufio.NewReader(c).ReadString(0)
				close(done)
			}()
			tick := time.NewTicker(time.Second)
		trickle:
			for {
				select {
				case <-stop:
					tick.Stop()
					c.Close()
					return
				case <-done:
					break trickle
				case <-tick.C:
					_, _ = c.Write([]byte("a"))
				}
			}
			tick.Stop()
			c.Close()
		}
		select {
		case <-stop:
			return
		case <-time.After(time.Second):
		}
	}
}

// fds counts the open descriptors of pid.
func fds(pid int) int {
	es, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	return len(es)
}

// 1,100 unauthenticated connections sending slow headers or slow bodies,
// against a daemon whose open-file limit is 1,024: a token holder's fresh
// connection is still answered within a second, and a session is still
// created and stored.
func TestDaemonServesTokenHoldersUnderSlowClients(t *testing.T) {
	var lim syscall.Rlimit
	testkit.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim))
	if lim.Cur < 4096 {
		lim.Cur = min(lim.Max, 8192)
		testkit.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim))
		if lim.Cur < 4096 {
			t.Skipf("this test needs 4,096 open files; the hard limit is %d", lim.Max)
		}
	}
	d := startDaemonWithFDLimit(t, t.TempDir(), 1024)
	pid := d.proc.Pid()
	addr := strings.TrimPrefix(d.url, "http://")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 1100 {
		wg.Add(1)
		go slowClient(addr, i, stop, &wg)
	}
	t.Cleanup(func() { close(stop); wg.Wait() })
	// Let the crowd arrive, and the first deadlines pass.
	time.Sleep(6 * time.Second)

	holder := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	get := func(path string) {
		t.Helper()
		req, err := http.NewRequest("GET", d.url+path, nil)
		testkit.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+d.token)
		start := time.Now()
		res, err := holder.Do(req)
		if err != nil {
			t.Fatalf("GET %s under 1,100 slow clients (daemon fds %d): %v", path, fds(pid), err)
		}
		res.Body.Close()
		testkit.Equal(t, res.StatusCode, http.StatusOK)
		t.Logf("GET %s: %s (daemon fds %d)", path, time.Since(start), fds(pid))
	}
	for range 5 {
		get("/v1/sessions")
		time.Sleep(500 * time.Millisecond)
	}
	// The store still takes writes: a session is created and read back.
	sid := d.create(t, t.TempDir())
	get("/v1/sessions/" + sid)
	get("/v1/sessions/" + sid + "/history")
	if n := fds(pid); n >= 1024 {
		t.Fatalf("the daemon holds %d descriptors", n)
	}
}
