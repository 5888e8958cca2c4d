package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// hydraHealth is what Hydra's clients read of /v1/health before they talk
// to a daemon (hydra-acp 0.1.161's probeDaemon).
type hydraHealth struct {
	Version, TroupeVersion, Home, ConfigDigest string
}

// hydraPID is the discovery record Hydra's clients read from
// $HYDRA_ACP_HOME/daemon.pid.
type hydraPID struct {
	PID, Port, LoopbackPort int
	Host, StartedAt         string
}

// A Hydra client with HYDRA_ACP_HOME set to troupe's home finds the daemon
// through daemon.pid, and talks to it only if /v1/health names its home and
// the digest it computes over the home's config.json (here: recorded from
// hydra-acp 0.1.161 for this file).
func TestDaemonDiscoveredByHydraClients(t *testing.T) {
	home := t.TempDir()
	// A free port for config.json's daemon.port: the daemon listens where
	// the file says when --listen is not given, as Hydra's daemon would.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testkit.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	testkit.NoError(t, ln.Close())
	cfg := `{"daemon":{"host":"127.0.0.1","port":` + strconv.Itoa(port) + `,"logLevel":"debug"},"defaultAgent":"troupe"}`
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600))
	bin := testkit.BuildTroupe(t)
	_ = os.Remove(filepath.Join(home, "daemon.addr"))
	p := testkit.Start(t, bin, nil, "daemon", "--home", home)
	d := daemonOf(t, binaryDaemon{p}, home) // the binary: no --listen, and its own pid in the record
	u, err := url.Parse(d.url)
	testkit.NoError(t, err)
	testkit.Equal(t, u.Port(), strconv.Itoa(port))

	var h hydraHealth
	d.call(t, "GET", "/v1/health", nil, 200, &h)
	testkit.Equal(t, h.Home, home)
	testkit.Equal(t, h.Version, "0.1.161") // Hydra's TUI asks for a restart on any other
	if h.TroupeVersion == "" {
		t.Error("health does not say troupe's own version")
	}
	testkit.Equal(t, h.ConfigDigest, hydraDigest(t, port))

	b, err := os.ReadFile(filepath.Join(home, "daemon.pid"))
	testkit.NoError(t, err)
	var rec hydraPID
	testkit.NoError(t, json.Unmarshal(b, &rec))
	testkit.Equal(t, rec.PID, p.Cmd.Process.Pid)
	testkit.Equal(t, rec.Host, "127.0.0.1")
	testkit.Equal(t, rec.Port, port)
	testkit.Equal(t, rec.LoopbackPort, port)
	if rec.StartedAt == "" {
		t.Error("daemon.pid has no startedAt")
	}
	// troupe's own verbs still read the record.
	out := cli(t, []string{"TROUPE_HOME=" + home}, "", "daemon", "status").ok(t, "daemon status")
	if !strings.Contains(out, strconv.Itoa(rec.PID)) {
		t.Fatalf("daemon status does not name pid %d: %q", rec.PID, out)
	}
}

// hydraDigest is Hydra's configDigest of {"daemon":{"host":"127.0.0.1",
// "port":port}}: the same canonical JSON's SHA-256, as
// runtime/hydraconfig's recorded cases pin for fixed ports.
func hydraDigest(t *testing.T, port int) string {
	t.Helper()
	sum := sha256.Sum256([]byte(`{"daemon":{"host":"127.0.0.1","port":` + strconv.Itoa(port) + `}}`))
	return hex.EncodeToString(sum[:])[:16]
}
