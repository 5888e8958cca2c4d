package daemon_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/daemontest"
	"github.com/troupehq/troupe/transports/daemon"
)

// health lists url's sessions with token (health itself takes none) and
// returns the status.
func health(t *testing.T, url, token string) int {
	t.Helper()
	req, err := http.NewRequest("GET", url+"/v1/sessions", nil)
	testkit.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	testkit.NoError(t, err)
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}

// A daemon started from a Config answers on the address its address file
// names, with the home's service token; it holds the home while it runs,
// and its shutdown removes the address file and lets the home go.
func TestStartServesAndShutdownReleasesTheHome(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d := daemontest.Start(t, daemon.Config{Home: home, Version: "test"})
	addr, err := os.ReadFile(filepath.Join(home, daemon.AddrFile))
	testkit.NoError(t, err)
	testkit.Equal(t, strings.TrimSpace(string(addr)), d.URL())
	tok, err := os.ReadFile(filepath.Join(home, "auth-token"))
	testkit.NoError(t, err)
	testkit.Equal(t, d.Token(), strings.TrimSpace(string(tok)))
	testkit.Equal(t, d.Home(), home)
	testkit.Equal(t, health(t, d.URL(), d.Token()), http.StatusOK)
	testkit.Equal(t, health(t, d.URL(), "wrong"), http.StatusUnauthorized)

	_, err = daemon.Start(context.Background(), daemon.Config{Home: home, Listen: "127.0.0.1:0"})
	if err == nil || !strings.Contains(err.Error(), "already runs on "+home) {
		t.Fatalf("a second daemon on the home: %v", err)
	}

	daemontest.Stop(t, d)
	if _, err := os.Stat(filepath.Join(home, daemon.AddrFile)); !os.IsNotExist(err) {
		t.Fatalf("address file after shutdown: %v", err)
	}
	select {
	case <-d.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done not closed after shutdown")
	}
	testkit.NoError(t, d.Err())
	again := daemontest.Start(t, daemon.Config{Home: home})
	testkit.Equal(t, health(t, again.URL(), again.Token()), http.StatusOK)
}

// The plugin supervisors are the guardian's children, supervised with the
// tree, not actors at protoactor's root beside it.
func TestPluginSupervisorsAreTheGuardiansChildren(t *testing.T) {
	t.Parallel()
	d := daemontest.Start(t, daemon.Config{})
	reg := d.Runtime().System.ProcessRegistry
	for _, kind := range []string{"extensions", "transformers"} {
		if _, ok := reg.GetLocal("troupe/" + kind); !ok {
			t.Errorf("no troupe/%s under the guardian", kind)
		}
		if _, ok := reg.GetLocal(kind); ok {
			t.Errorf("%s spawned at protoactor's root", kind)
		}
	}
}

// The context Start is given bounds the daemon's life: when it ends, Done
// is closed with no error, and Shutdown stops the daemon.
func TestStartContextEndingClosesDone(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	d, err := daemon.Start(ctx, daemon.Config{Home: t.TempDir(), Listen: "127.0.0.1:0"})
	testkit.NoError(t, err)
	t.Cleanup(func() { daemontest.Stop(t, d) })
	select {
	case <-d.Done():
		t.Fatal("Done closed before anything asked the daemon to stop")
	default:
	}
	cancel()
	select {
	case <-d.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done not closed once the context ended")
	}
	testkit.NoError(t, d.Err())
	daemontest.Stop(t, d)
}

// A configuration the daemon cannot serve is ErrConfig (the command exits
// 2 on it), and the home is left free.
func TestStartRefusesAnAddressOffLoopbackWithoutTLS(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	_, err := daemon.Start(context.Background(), daemon.Config{Home: home, Listen: "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "without TLS") {
		t.Fatalf("start off loopback without TLS: %v", err)
	}
	if !errors.Is(err, daemon.ErrConfig) {
		t.Fatalf("%v is not ErrConfig", err)
	}
	d := daemontest.Start(t, daemon.Config{Home: home})
	testkit.Equal(t, health(t, d.URL(), d.Token()), http.StatusOK)
}
