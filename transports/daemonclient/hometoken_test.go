package daemonclient

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSameDaemon(t *testing.T) {
	own := "http://127.0.0.1:4000"
	for _, same := range []string{own, own + "/", "HTTP://127.0.0.1:4000", " http://127.0.0.1:4000\n"} {
		if !SameDaemon(same, own) {
			t.Errorf("%q is not %q", same, own)
		}
	}
	if !SameDaemon("https://Host.example", "https://host.example:443/") || !SameDaemon("http://[::1]:80", "http://[::1]") {
		t.Error("default ports or host case differ")
	}
	for _, other := range []string{"http://127.0.0.1:4001", "https://127.0.0.1:4000", "http://localhost:4000",
		"http://127.0.0.1:4000/x", "http://u@127.0.0.1:4000", "http://127.0.0.1:4000?a=1", "http://127.0.0.1:4000#f",
		"ftp://127.0.0.1:4000", "127.0.0.1:4000", "", "http://evil.example/http://127.0.0.1:4000"} {
		if SameDaemon(other, own) {
			t.Errorf("%q taken for %q", other, own)
		}
	}
}

// The home's token is given for its own daemon's address only; another
// URL, or a home naming no daemon, is a *ForeignURLError.
func TestHomeTokenOnlyForTheHomesDaemon(t *testing.T) {
	home := t.TempDir()
	var foreign *ForeignURLError
	if _, err := HomeToken(home, "http://127.0.0.1:4000"); !errors.As(err, &foreign) || foreign.Own != "" {
		t.Fatalf("a home naming no daemon: %v", err)
	}
	if err := os.WriteFile(filepath.Join(home, AddrFile), []byte("http://127.0.0.1:4000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, TokenFile), []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, err := HomeToken(home, "http://127.0.0.1:4000/"); err != nil || tok != "secret" {
		t.Fatalf("own daemon: %q %v", tok, err)
	}
	if tok, err := HomeToken(home, "http://127.0.0.1:4001"); !errors.As(err, &foreign) || tok != "" {
		t.Fatalf("another daemon: %q %v", tok, err)
	}
}
