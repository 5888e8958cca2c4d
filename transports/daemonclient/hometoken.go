package daemonclient

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ForeignURLError says a URL other than the home's own daemon was given
// without a token: the home's token is not sent there.
type ForeignURLError struct {
	URL  string
	Home string
	Own  string // the home's daemon address, "" when it names none
}

func (e *ForeignURLError) Error() string {
	own := "names no daemon"
	if e.Own != "" {
		own = "names " + e.Own
	}
	return fmt.Sprintf("%s is not the daemon of %s (its %s %s), so its token is not sent there: pass --token or set $TROUPE_TOKEN",
		e.URL, e.Home, AddrFile, own)
}

// HomeToken is the token of home's daemon for a client going to rawURL:
// the home's auth-token when rawURL is the address the home's daemon.addr
// names (compared normalised: scheme and host case, default port, trailing
// slash), and a *ForeignURLError otherwise, so the home's credential goes
// to its own daemon alone, never to whatever URL a command was given. An
// empty token with no error: the home has no auth-token file.
func HomeToken(home, rawURL string) (string, error) {
	own, err := homeAddr(home)
	if err != nil {
		return "", err
	}
	if own == "" || !SameDaemon(rawURL, own) {
		return "", &ForeignURLError{URL: rawURL, Home: home, Own: own}
	}
	b, err := os.ReadFile(filepath.Join(home, TokenFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read the daemon's token: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// homeAddr is the address in home's daemon.addr, "" when there is none.
func homeAddr(home string) (string, error) {
	b, err := os.ReadFile(filepath.Join(home, AddrFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the daemon's address: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// SameDaemon reports whether a and b are one daemon's address: http or
// https, the same scheme, host (case aside) and port (the scheme's default
// when absent) and path (trailing slashes aside), neither with user
// information, a query or a fragment. Names are not resolved: localhost
// and 127.0.0.1 differ.
func SameDaemon(a, b string) bool {
	na, ok := normalURL(a)
	if !ok {
		return false
	}
	nb, ok := normalURL(b)
	return ok && na == nb
}

func normalURL(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	switch {
	case scheme == "http" && port == "":
		port = "80"
	case scheme == "https" && port == "":
		port = "443"
	case scheme != "http" && scheme != "https":
		return "", false
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port) + strings.TrimRight(u.Path, "/"), true
}
