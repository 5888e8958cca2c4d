package hydracompat

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/pidfile"
	"github.com/troupehq/troupe/testkit"
)

// Daemon is one `troupe daemon` on a fresh home, answering with the fake
// llama-server's scripted model.
type Daemon struct {
	t       testing.TB
	troupe  string
	Home    string
	Work    string // the clients' working directory
	Listen  string // host:port troupe listens on
	LLMURL  string // the fake llama-server's base URL
	Script  string // the fake model's script
	Proc    *testkit.Proc
	OnStart func(pidfile.Info) // after each start, once daemon.pid is written
}

// DaemonOptions say how to start the daemon.
type DaemonOptions struct {
	Troupe, FakeLlama string // binaries
	Script            string // llmserver script (YAML), or "" for echo only
	Config            string // config.json's text; "" writes none
}

// StartDaemon starts the fake llama-server and `troupe daemon` on a free
// loopback port, on a fresh home holding opts.Config.
func StartDaemon(t testing.TB, opts DaemonOptions) *Daemon {
	t.Helper()
	d := &Daemon{t: t, troupe: opts.Troupe, Home: t.TempDir(), Work: t.TempDir(), Script: opts.Script}
	// Both ports chosen while both are held: two FreePort calls may be
	// given the same port, and the fake server would then take the
	// daemon's.
	ports := FreePorts(t, 2)
	d.Listen = "127.0.0.1:" + strconv.Itoa(ports[0])
	if opts.Config != "" {
		testkit.NoError(t, os.WriteFile(filepath.Join(d.Home, "config.json"), []byte(opts.Config), 0o600))
	}
	model := filepath.Join(t.TempDir(), "model.gguf")
	testkit.NoError(t, os.WriteFile(model, []byte("GGUF"), 0o600))
	llmPort := ports[1]
	args := []string{"-m", model, "--port", strconv.Itoa(llmPort)}
	if opts.Script != "" {
		script := filepath.Join(t.TempDir(), "script.yaml")
		testkit.NoError(t, os.WriteFile(script, []byte(opts.Script), 0o600))
		args = append(args, "--fake-script", script)
	}
	testkit.Start(t, opts.FakeLlama, nil, args...)
	d.LLMURL = fmt.Sprintf("http://127.0.0.1:%d/v1", llmPort)
	awaitHTTP(t, d.LLMURL+"/models")
	return d
}

// Start starts `troupe daemon` and waits for its discovery record.
func (d *Daemon) Start() {
	d.t.Helper()
	// Remove the record of a previous run, so the wait below sees this one.
	_ = os.Remove(filepath.Join(d.Home, "daemon.pid"))
	d.Proc = testkit.Start(d.t, d.troupe, []string{"OPENAI_BASE_URL=" + d.LLMURL, "OPENAI_API_KEY=x", "TROUPE_HOME=" + d.Home},
		"daemon", "--home", d.Home, "--listen", d.Listen, "--model", "fake", "--cwd", d.Work)
	info := d.awaitPID()
	if d.OnStart != nil {
		d.OnStart(info)
	}
}

// Stop stops the daemon as a user would (SIGTERM) and waits for it.
func (d *Daemon) Stop() {
	d.t.Helper()
	d.Proc.Signal(syscall.SIGTERM)
	if _, err := d.Proc.ExitCode(15 * time.Second); err != nil {
		d.Proc.Kill()
		d.t.Fatalf("troupe daemon did not stop on SIGTERM: %v", err)
	}
}

// URL is the daemon's own base URL.
func (d *Daemon) URL() string { return "http://" + d.Listen }

func (d *Daemon) awaitPID() pidfile.Info {
	d.t.Helper()
	path := filepath.Join(d.Home, "daemon.pid")
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var info pidfile.Info
		if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &info) == nil && info.Port != 0 && info.PID == d.Proc.Cmd.Process.Pid {
			if resp, err := http.Get(d.URL() + "/v1/health"); err == nil {
				resp.Body.Close()
				return info
			}
		}
		select {
		case <-d.Proc.Done():
			d.t.Fatalf("troupe daemon exited at start:\n%s", d.Proc.Stderr())
		case <-time.After(50 * time.Millisecond):
		}
	}
	d.t.Fatalf("troupe daemon wrote no discovery record in %s within 20s:\n%s", path, d.Proc.Stderr())
	return pidfile.Info{}
}

// Redirect rewrites the daemon's discovery record, in place (the daemon
// holds a lock on the file), so that clients dial port instead.
func (d *Daemon) Redirect(info pidfile.Info, port int) {
	d.t.Helper()
	info.Port, info.LoopbackPort = port, port
	b, err := json.Marshal(info)
	testkit.NoError(d.t, err)
	f, err := os.OpenFile(filepath.Join(d.Home, "daemon.pid"), os.O_WRONLY, 0)
	testkit.NoError(d.t, err)
	defer f.Close()
	_, err = f.WriteAt(append(b, '\n'), 0)
	testkit.NoError(d.t, err)
	testkit.NoError(d.t, f.Truncate(int64(len(b)+1)))
}

// Token is the service token in the home.
func (d *Daemon) Token() string {
	b, err := os.ReadFile(filepath.Join(d.Home, "auth-token"))
	testkit.NoError(d.t, err)
	return string(trimNL(b))
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// FreePort returns a loopback port free at the time of the call.
func FreePort(t testing.TB) int {
	t.Helper()
	return FreePorts(t, 1)[0]
}

// FreePorts returns n distinct loopback ports free at the time of the
// call: each is held until all are chosen.
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		testkit.NoError(t, err)
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

func awaitHTTP(t testing.TB, url string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(30 * time.Millisecond)
	}
	t.Fatalf("%s did not answer 200 within 10s", url)
}
