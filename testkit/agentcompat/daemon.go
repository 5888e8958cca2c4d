package agentcompat

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/subprocess"
)

// Daemon is one `troupe daemon` subprocess on Home.
type Daemon struct {
	Troupe, Home string
	Env          []string
	// Owner is the test whose end stops the daemon, whichever row (a
	// subtest) started it.
	Owner      testing.TB
	Proc       *testkit.Proc
	URL, Token string
}

// Start starts the daemon on a free loopback port and waits for its
// address file, failing t; the process is stopped when d.Owner ends.
func (d *Daemon) Start(t testing.TB) {
	t.Helper()
	_ = os.Remove(filepath.Join(d.Home, "daemon.addr"))
	cmd := exec.Command(d.Troupe, "daemon", "--home", d.Home, "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), d.Env...)
	p, err := subprocess.Launch(cmd)
	testkit.NoError(t, err)
	d.Proc = p
	d.Owner.Cleanup(func() {
		p.Stop()
		if d.Owner.Failed() {
			d.Owner.Logf("troupe daemon's stderr:\n%s", p.Stderr())
		}
	})
	testkit.Eventually(t, 20*time.Second, "the daemon's address file", func() bool {
		b, err := os.ReadFile(filepath.Join(d.Home, "daemon.addr"))
		d.URL = strings.TrimSpace(string(b))
		return err == nil && d.URL != ""
	})
	tok, err := os.ReadFile(filepath.Join(d.Home, "auth-token"))
	testkit.NoError(t, err)
	d.Token = strings.TrimSpace(string(tok))
}

// Stop stops the daemon as a user does (SIGTERM) and waits for it.
func (d *Daemon) Stop(t testing.TB) {
	t.Helper()
	d.Proc.Signal(syscall.SIGTERM)
	if _, err := d.Proc.ExitCode(30 * time.Second); err != nil {
		d.Proc.Kill()
		t.Fatalf("troupe daemon did not stop on SIGTERM: %v\n%s", err, d.Proc.Stderr())
	}
}

// Dial connects an ACP client named name.
func (d *Daemon) Dial(t testing.TB, name string, wait time.Duration) *acpclient.Client {
	t.Helper()
	return acpclient.Dial(t, acpclient.Options{URL: acpclient.URL(d.URL, "/acp", ""),
		Subprotocols: acpclient.WithToken(d.Token), Name: name, Wait: wait})
}

// Do sends a REST request with the service token and returns the status
// and body.
func (d *Daemon) Do(t testing.TB, method, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, d.URL+path, nil)
	testkit.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+d.Token)
	res, err := http.DefaultClient.Do(req)
	testkit.NoError(t, err)
	defer res.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		b.WriteString(sc.Text())
		b.WriteByte('\n')
	}
	return res.StatusCode, b.String()
}

// AgentHome writes home's config.json with agents (id → entry).
func AgentHome(t testing.TB, home string, agents map[string]Agent) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"agents": agents})
	testkit.NoError(t, err)
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.json"), b, 0o600))
}

// Agent is a config.json agents entry.
type Agent struct {
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// NewSession opens a session on agent over c in cwd.
func NewSession(t testing.TB, c *acpclient.Client, cwd, agent string) string {
	t.Helper()
	var res struct {
		SessionID string `json:"sessionId"`
	}
	c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"agentId": agent}}})).Decode(t, &res)
	if res.SessionID == "" {
		t.Fatal("session/new answered no session id")
	}
	return res.SessionID
}
