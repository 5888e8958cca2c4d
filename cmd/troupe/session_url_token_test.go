package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// headerLog is a loopback listener posing as a daemon that records the
// Authorization header of every request it gets.
type headerLog struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "METHOD /path Authorization"
}

func newHeaderLog(t *testing.T) *headerLog {
	l := &headerLog{}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		l.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/health":
			_, _ = w.Write([]byte(`{"status":"ok","version":"x","pid":1,"startedAt":"2026-01-01T00:00:00Z"}`))
		case "/v1/sessions":
			_, _ = w.Write([]byte(`{"sessions":[]}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"not found"}`))
		}
	}))
	t.Cleanup(l.Close)
	return l
}

func (l *headerLog) requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// `troupe session … --url U` sends the home's token only to the home's own
// daemon (the address its daemon.addr names): to any other URL, without
// --token or $TROUPE_TOKEN, the command stops with a usage error (exit 2)
// naming them, before any request; with $TROUPE_TOKEN that token goes,
// and the home's own daemon, named or not, works as before.
func TestSessionURLGetsNoHomeToken(t *testing.T) {
	home := t.TempDir()
	d := startDaemon(t, home, nil)
	l := newHeaderLog(t)
	env := []string{"TROUPE_HOME=" + home, "TROUPE_TOKEN="}

	for _, args := range [][]string{
		{"session", "list", "--url", l.URL},
		{"session", "kill", "s-1", "--url", l.URL},
		{"session", "list", "--url", l.URL + "/", "--home", home},
		{"daemon", "status", "--url", l.URL},
	} {
		r := cli(t, env, "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "--token") || !strings.Contains(r.stderr, "$TROUPE_TOKEN") ||
			!strings.Contains(r.stderr, "not the daemon of "+home) {
			t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if seen := l.requests(); len(seen) != 0 {
		t.Fatalf("the foreign listener got requests: %q", seen)
	}
	if strings.Contains(strings.Join(l.requests(), "\n"), d.token) {
		t.Fatal("the home's token went to the listener")
	}

	cli(t, append(env, "TROUPE_TOKEN=theirs"), "", "session", "list", "--url", l.URL).ok(t, "list with $TROUPE_TOKEN")
	cli(t, env, "", "session", "kill", "s-1", "--url", l.URL, "--token", "flagged")
	seen := strings.Join(l.requests(), "\n")
	if strings.Contains(seen, d.token) || !strings.Contains(seen, "GET /v1/sessions Bearer theirs") ||
		!strings.Contains(seen, "POST /v1/sessions/s-1/kill Bearer flagged") {
		t.Fatalf("the listener saw:\n%s", seen)
	}

	// The home's own daemon: found, named as daemon.addr says or in
	// another spelling of it, and $TROUPE_TOKEN wins over the home's.
	id := d.create(t, t.TempDir())
	for _, url := range []string{"", d.url, d.url + "/", strings.Replace(d.url, "http://", "HTTP://", 1)} {
		args := []string{"session", "list"}
		if url != "" {
			args = append(args, "--url", url)
		}
		if out := cli(t, env, "", args...).ok(t, "list on the home's daemon "+url); !strings.Contains(out, id) {
			t.Fatalf("list on %q lacks %s:\n%s", url, id, out)
		}
	}
	r := cli(t, append(env, "TROUPE_TOKEN=wrong"), "", "session", "list")
	if r.code != 1 || !strings.Contains(r.stderr, "refused the token") {
		t.Fatalf("a wrong $TROUPE_TOKEN: exit %d, stderr %q", r.code, r.stderr)
	}
}
