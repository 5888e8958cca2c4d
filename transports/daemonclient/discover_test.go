package daemonclient

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/troupehq/troupe/transports/daemon"
)

func TestFilesAreTheDaemons(t *testing.T) {
	if AddrFile != daemon.AddrFile || TokenFile != daemon.TokenFile {
		t.Fatalf("files %s, %s; the daemon writes %s, %s", AddrFile, TokenFile, daemon.AddrFile, daemon.TokenFile)
	}
}

// No address file, or one naming a port nobody answers on: the error
// names `troupe daemon start`.
func TestDiscoverNoDaemon(t *testing.T) {
	home := t.TempDir()
	_, err := Discover(context.Background(), Options{Home: home})
	var nr *NotRunningError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "troupe daemon start") || !strings.Contains(err.Error(), home) {
		t.Fatalf("no address file: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	if err := os.WriteFile(filepath.Join(home, AddrFile), []byte(url+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Discover(context.Background(), Options{Home: home})
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "troupe daemon start") || !strings.Contains(err.Error(), url) {
		t.Fatalf("stale address file: %v", err)
	}
}
