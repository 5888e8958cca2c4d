package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// daemonProc is a running `troupe daemon` on port 0 and an HTTP client
// for it, written from the protocol's REST section.
type daemonProc struct {
	proc  *testkit.Proc
	home  string
	url   string
	token string
}

// startDaemon runs the daemon on a fresh port in home and waits until its
// address file names it.
func startDaemon(t testing.TB, home string, env []string, args ...string) *daemonProc {
	t.Helper()
	bin := testkit.BuildTroupe(t)
	_ = os.Remove(filepath.Join(home, "daemon.addr"))
	p := testkit.Start(t, bin, env, append([]string{"daemon", "--home", home, "--listen", "127.0.0.1:0"}, args...)...)
	return daemonOf(t, p, home)
}

// daemonOf waits until the daemon p runs (however it was started: under
// a wrapper, in a namespace) names its address in home's address file,
// and reads home's token. Remove the address file before starting p.
func daemonOf(t testing.TB, p *testkit.Proc, home string) *daemonProc {
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
