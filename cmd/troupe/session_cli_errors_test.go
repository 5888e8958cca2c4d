package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every session verb's error paths print one line naming the fix and
// exit non-zero: no daemon (start one), a wrong token (the right one),
// an unknown session (list them).
func TestSessionCLIErrorPaths(t *testing.T) {
	work := t.TempDir()
	bundle := filepath.Join(work, "bundle.hydra")
	if err := os.WriteFile(bundle, []byte(`{"version":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	const id = "s-nosuchsession"
	verbs := []struct {
		args   []string
		stdin  string
		withID bool // names a session: has an unknown-session path
	}{
		{args: []string{"list"}},
		{args: []string{"new", "--cwd", work}},
		{args: []string{"prompt", id, "hello"}, withID: true},
		{args: []string{"prompt", id, "-"}, stdin: "hello from stdin\n", withID: true},
		{args: []string{"prompt", id, "hello", "--queue"}, withID: true},
		{args: []string{"cancel", id}, withID: true},
		{args: []string{"queue", id}, withID: true},
		{args: []string{"queue", id, "--cancel", "msg-x"}, withID: true},
		{args: []string{"queue", id, "--edit", "msg-x", "new text"}, withID: true},
		{args: []string{"fork", id}, withID: true},
		{args: []string{"export", id}, withID: true},
		{args: []string{"export", id, "-o", filepath.Join(work, "out.hydra")}, withID: true},
		{args: []string{"import", bundle}},
		{args: []string{"transcript", id}, withID: true},
		{args: []string{"diff", id}, withID: true},
		{args: []string{"search", "needle"}},
		{args: []string{"kill", id}, withID: true},
		{args: []string{"rm", id}, withID: true},
		{args: []string{"title", id, "a title"}, withID: true},
		{args: []string{"attach", id}, withID: true},
		{args: []string{"attach", id, "--readonly", "--from-start"}, withID: true},
	}
	oneLine := func(t *testing.T, r cliResult, want ...string) {
		t.Helper()
		if r.code == 0 {
			t.Fatalf("exit 0; stdout %q", r.stdout)
		}
		if strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") {
			t.Fatalf("stderr is not one line: %q", r.stderr)
		}
		for _, w := range want {
			if !strings.Contains(r.stderr, w) {
				t.Fatalf("stderr %q does not name %q", r.stderr, w)
			}
		}
	}

	noDaemon := t.TempDir()
	home := t.TempDir()
	d := startDaemon(t, home, nil)
	for _, v := range verbs {
		name := strings.Join(v.args, " ")
		t.Run(name+"/no daemon", func(t *testing.T) {
			oneLine(t, cli(t, nil, v.stdin, append([]string{"session"}, append(v.args, "--home", noDaemon)...)...), "troupe daemon start")
		})
		t.Run(name+"/wrong token", func(t *testing.T) {
			r := cli(t, nil, v.stdin, append([]string{"session"}, append(v.args, "--url", d.url, "--token", "wrong")...)...)
			oneLine(t, r, "refused the token", "--token")
		})
		if !v.withID {
			continue
		}
		t.Run(name+"/unknown session", func(t *testing.T) {
			oneLine(t, cli(t, nil, v.stdin, append([]string{"session"}, append(v.args, "--home", home)...)...),
				id, "not found", "troupe session list")
		})
	}
	if _, err := os.Stat(filepath.Join(work, "out.hydra")); !os.IsNotExist(err) {
		t.Fatalf("a failed export left its file: %v", err)
	}
	// Bad usage is exit 2, naming what is wanted.
	r := cli(t, nil, "", "session", "transcript", "--home", home)
	if r.code != 2 || !strings.Contains(r.stderr, "want a session id") {
		t.Fatalf("transcript without an id: exit %d, %q", r.code, r.stderr)
	}
	r = cli(t, nil, "", "session", "prompt", "--help", "--home", noDaemon)
	if r.code != 0 || !strings.Contains(r.stderr, "-queue") {
		t.Fatalf("prompt --help needs no daemon: exit %d, %q", r.code, r.stderr)
	}
}
