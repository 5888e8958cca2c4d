package main

import (
	"net"
	"strings"
	"testing"

	"github.com/troupehq/troupe/testkit"
)

// closedURL is an OpenAI-compatible base URL on a loopback port nothing
// listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testkit.NoError(t, err)
	addr := ln.Addr().String()
	testkit.NoError(t, ln.Close())
	return "http://" + addr + "/v1"
}

// wantUnreachable checks a final error says where the server is not, why
// in the network's word, and every way to point the provider elsewhere,
// without the client's chain of wrapped errors.
func wantUnreachable(t *testing.T, what, stderr, url string) {
	t.Helper()
	for _, want := range []string{"cannot reach the model server at " + url + " (connect: connection refused)",
		"is the server running?", "comes from $OPENAI_BASE_URL", "base_url under providers.openai in ", "models.yml", "--base-url"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("%s: stderr lacks %q:\n%s", what, want, stderr)
		}
	}
	if strings.Contains(stderr, "dial tcp") || strings.Contains(stderr, "chat completions:") {
		t.Errorf("%s: a raw error chain:\n%s", what, stderr)
	}
}

// With the model server down, `troupe run` and the daemon's clients show
// each retry counted against the 3 there are (not "1/4"), and end with
// one line naming the server's URL and where it was configured.
func TestModelServerDownRetriesAndHint(t *testing.T) {
	url := closedURL(t)
	env := []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY="}

	r := cli(t, append(env, "TROUPE_HOME="+t.TempDir()), "", "run", "--model", "tiny", "--retry-delay", "10ms", "hello")
	testkit.Equal(t, r.code, 1)
	for _, want := range []string{"retry 1/3 in 10ms: cannot reach", "retry 2/3 in 20ms", "retry 3/3 in 40ms"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("run: stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "/4") {
		t.Errorf("run counts the retries against 4:\n%s", r.stderr)
	}
	last := strings.Split(strings.TrimSpace(r.stderr), "\n")
	wantUnreachable(t, "run", last[len(last)-1], url)

	home := t.TempDir()
	startDaemon(t, home, env, "--model", "tiny", "--retry-delay", "10ms")
	env = append(env, "TROUPE_HOME="+home)
	id := strings.TrimSpace(cli(t, env, "", "session", "new", "--cwd", t.TempDir()).ok(t, "new"))
	r = cli(t, env, "", "session", "prompt", id, "hello")
	testkit.Equal(t, r.code, 1)
	for _, want := range []string{"retry 1/3 in 10ms: cannot reach the model server at " + url, "retry 3/3 in 40ms", "gave up after 3 retries"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("session prompt: stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	last = strings.Split(strings.TrimSpace(r.stderr), "\n")
	wantUnreachable(t, "session prompt", last[len(last)-1], url)
}
