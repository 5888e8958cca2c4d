package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/subprocess"
	"github.com/troupehq/troupe/transports/daemon"
)

// daemonProc is a running `troupe daemon` on port 0 and an HTTP client
// for it, written from the protocol's REST section.
type daemonProc struct {
	proc  daemonRunner
	home  string
	url   string
	token string
}

// daemonRunner is what the tests do with a running daemon: the binary's
// process (binaryDaemon) or the daemon run in the test's own process
// (inProcessDaemon), which cannot be killed.
type daemonRunner interface {
	Signal(os.Signal)
	Wait(t subprocess.TB, timeout time.Duration) int
	Kill()
	Stop()
	Stderr() string
	Pid() int
}

// startDaemon runs the daemon in the test's process, under the race
// detector the test runs with, on a fresh port in home, from args parsed
// as the command parses them, and waits until its address file names it.
// env may set only what the engine reads through its Env (inProcessEnv);
// a test that needs more of a process uses startDaemonBinary.
func startDaemon(t testing.TB, home string, env []string, args ...string) *daemonProc {
	t.Helper()
	_ = os.Remove(filepath.Join(home, "daemon.addr"))
	getenv := inProcessGetenv(t, env)
	stderr := new(testkit.Buffer)
	f, code, ok := parseDaemonArgs(append([]string{"--home", home, "--listen", "127.0.0.1:0"}, args...), stderr)
	if !ok {
		t.Fatalf("daemon args %q: exit %d: %s", args, code, stderr)
	}
	if f.logFile != "" {
		t.Fatal("--log-file redirects the process's stderr: use startDaemonBinary")
	}
	cfg, err := f.config(stderr)
	testkit.NoError(t, err)
	cfg.Engine.Env = getenv
	ctx, cancel := context.WithCancel(context.Background())
	p := &inProcessDaemon{t: t, cancel: cancel, exited: make(chan struct{}), stderr: stderr}
	go func() {
		defer close(p.exited)
		p.code = serveDaemonWith(ctx, cfg, stderr, func(d *daemon.Daemon) { p.daemon.Store(d) })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-p.exited:
		case <-time.After(2 * shutdownTimeout):
			t.Errorf("the in-process daemon did not stop within %s", 2*shutdownTimeout)
		}
		if t.Failed() {
			t.Logf("stderr of the in-process daemon:\n%s", stderr)
		}
	})
	// Started is told after the command's start-up lines (listening, a
	// first-use hint, metrics) are written: a test reads them all.
	testkit.Eventually(t, 20*time.Second, "the daemon's address file and start-up lines", func() bool {
		select {
		case <-p.exited:
			t.Fatalf("the daemon exited %d:\n%s", p.code, stderr)
		default:
		}
		_, err := os.Stat(filepath.Join(home, "daemon.addr"))
		return err == nil && p.daemon.Load() != nil
	})
	return daemonOf(t, p, home)
}

// inProcessEnv are the variables an in-process daemon takes from a test's
// env: the engine reads them through engine.Options.Env, which the binary
// reads from its environment.
var inProcessEnv = []string{"OPENAI_BASE_URL", "OPENAI_API_KEY"}

// inProcessGetenv is the engine's Env for env over the test process's
// environment, as the binary's would be; a variable something else reads
// fails the test: it needs startDaemonBinary.
func inProcessGetenv(t testing.TB, env []string) func(string) string {
	t.Helper()
	set := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if !slices.Contains(inProcessEnv, k) {
			t.Fatalf("env %s reaches more than the engine: use startDaemonBinary", k)
		}
		set[k] = v
	}
	return func(k string) string {
		if v, ok := set[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
}

// inProcessDaemon is the daemon run by serveDaemon, the command's own
// loop, in the test's process: a SIGTERM or SIGINT is its context's end,
// as the command's signal handler makes it, and its exit code is the
// command's.
type inProcessDaemon struct {
	daemon atomic.Pointer[daemon.Daemon] // once it listens
	t      testing.TB
	cancel context.CancelFunc
	exited chan struct{}
	code   int // written before exited closes
	stderr *testkit.Buffer
}

func (p *inProcessDaemon) Signal(sig os.Signal) {
	if sig != syscall.SIGTERM && sig != syscall.SIGINT {
		p.t.Fatalf("signal %v: the in-process daemon takes SIGTERM and SIGINT only; use startDaemonBinary", sig)
	}
	p.cancel()
}

func (p *inProcessDaemon) Wait(t subprocess.TB, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
		return p.code
	case <-time.After(timeout):
		t.Fatal(fmt.Sprintf("the in-process daemon did not stop within %s", timeout))
		return 0
	}
}

func (p *inProcessDaemon) Kill() {
	p.t.Fatal("a kill -9 needs the daemon's own process: use startDaemonBinary")
}

func (p *inProcessDaemon) Stop() { p.Kill() }

func (p *inProcessDaemon) Stderr() string { return p.stderr.String() }

func (p *inProcessDaemon) Pid() int { return os.Getpid() }

// binaryDaemon is the daemon's own process.
type binaryDaemon struct{ *testkit.Proc }

func (p binaryDaemon) Pid() int { return p.Cmd.Process.Pid }

// startDaemonBinary runs the troupe binary's daemon on a fresh port in
// home, for what needs its process: signals other than a stop, a kill -9,
// its memory or CPU, environment variables, the CLI around it.
func startDaemonBinary(t testing.TB, home string, env []string, args ...string) *daemonProc {
	t.Helper()
	return startDaemonBinaryOf(t, testkit.BuildTroupe(t), home, env, args...)
}

// startDaemonBinaryOf is startDaemonBinary with a binary of the caller's
// (one built with tags).
func startDaemonBinaryOf(t testing.TB, bin, home string, env []string, args ...string) *daemonProc {
	t.Helper()
	_ = os.Remove(filepath.Join(home, "daemon.addr"))
	p := testkit.Start(t, bin, env, append([]string{"daemon", "--home", home, "--listen", "127.0.0.1:0"}, args...)...)
	return daemonOf(t, binaryDaemon{p}, home)
}

// daemonOf waits until the daemon p runs (however it was started: under
// a wrapper, in a namespace) names its address in home's address file,
// and reads home's token. Remove the address file before starting p.
func daemonOf(t testing.TB, p daemonRunner, home string) *daemonProc {
	t.Helper()
	d := &daemonProc{proc: p, home: home}
	testkit.Eventually(t, 20*time.Second, "the daemon's address file", func() bool {
		b, err := os.ReadFile(filepath.Join(home, "daemon.addr"))
		d.url = strings.TrimSpace(string(b))
		return err == nil && d.url != ""
	})
	tok, err := os.ReadFile(filepath.Join(home, "auth-token"))
	testkit.NoError(t, err)
	d.token = strings.TrimSpace(string(tok))
	return d
}

// do sends a request with the service token; body is JSON-encoded unless
// it is a string.
func (d *daemonProc) do(t *testing.T, method, path string, body any) *http.Response {
	t.Helper()
	return d.doWith(t, method, path, body, map[string]string{"Authorization": "Bearer " + d.token})
}

func (d *daemonProc) doWith(t *testing.T, method, path string, body any, header map[string]string) *http.Response {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		testkit.NoError(t, err)
		r = strings.NewReader(string(enc))
	}
	req, err := http.NewRequest(method, d.url+path, r)
	testkit.NoError(t, err)
	for k, v := range header {
		if k == "Host" {
			req.Host = v // net/http ignores a Host header
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	testkit.NoError(t, err)
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// call sends a request, checks its status and decodes its JSON body into out
// (when out is not nil).
func (d *daemonProc) call(t *testing.T, method, path string, body any, want int, out any) {
	t.Helper()
	res := d.do(t, method, path, body)
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d; body %s", method, path, res.StatusCode, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
}

// wantError checks a response is status with the protocol's error body.
func wantError(t *testing.T, res *http.Response, status int) string {
	t.Helper()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d; body %s", res.Request.Method, res.Request.URL.Path, res.StatusCode, status, b)
	}
	var e struct {
		Error *string `json:"error"`
	}
	if err := json.Unmarshal(b, &e); err != nil || e.Error == nil || *e.Error == "" {
		t.Fatalf("%s %s: body %q is not {\"error\": ...}", res.Request.Method, res.Request.URL.Path, b)
	}
	return *e.Error
}

// create makes a session in cwd and returns its id.
func (d *daemonProc) create(t *testing.T, cwd string) string {
	t.Helper()
	var out struct{ SessionID, AgentID, Cwd string }
	d.call(t, "POST", "/v1/sessions", map[string]string{"cwd": cwd}, http.StatusCreated, &out)
	if out.SessionID == "" || out.AgentID != "troupe" || out.Cwd != cwd {
		t.Fatalf("create: %+v", out)
	}
	return out.SessionID
}

// ndjson reads every line of an NDJSON body.
func ndjson(t *testing.T, res *http.Response) []map[string]any {
	t.Helper()
	if ct := res.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Fatalf("content type %q", ct)
	}
	var out []map[string]any
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// update is a history line's params.update.
func update(line map[string]any) map[string]any {
	p, _ := line["params"].(map[string]any)
	u, _ := p["update"].(map[string]any)
	return u
}
