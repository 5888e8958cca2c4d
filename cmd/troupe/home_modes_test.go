package main

import (
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// homeModes walks home and reports every entry other local users could
// reach: a folder not 0700, a file not 0600 (symbolic links aside).
func homeModes(t *testing.T, home string) []string {
	t.Helper()
	var loose []string
	seen := 0
	testkit.NoError(t, filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if os.IsNotExist(err) {
			return nil // removed while walking (a -journal, a rotated log)
		}
		if err != nil {
			return err
		}
		seen++
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			rel, _ := filepath.Rel(home, path)
			loose = append(loose, rel+" "+info.Mode().String())
		}
		return nil
	}))
	if seen < 2 {
		t.Fatalf("nothing walked in %s", home)
	}
	return loose
}

// A home the daemon made is its user's alone: after a daemon ran a
// session's turn, opened its stdin ring, registered an extension and got a
// password, and an agent was installed, every folder under the home is
// 0700 and every file 0600, under the usual umask (022, which the test
// process has), while the daemon runs (the store's -wal and -shm, the pid
// and address files) and after it stopped.
func TestDaemonHomeIsPrivate(t *testing.T) {
	if old := syscall.Umask(0o022); old != 0o022 {
		syscall.Umask(old)
		t.Skipf("the test needs umask 022; this process has %03o", old)
	}
	home := filepath.Join(t.TempDir(), "home") // troupe makes it
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("hello")))
	bin := testkit.BuildTroupe(t)
	// The first command makes the home (the daemon's --log-file is opened
	// before it resolves its home, as `daemon start` does it).
	set := testkit.Start(t, bin, nil, "auth", "password", "--home", home)
	_, _ = set.Stdin.Write([]byte("correct horse\n"))
	_ = set.Stdin.Close()
	testkit.Equal(t, set.Wait(t, 30*time.Second), 0)
	// --log-file redirects the process's own stdout and stderr.
	d := startDaemonBinary(t, home, env, append(model, "--log-file", filepath.Join(home, "daemon.log"))...)

	c := d.dialACP(t, "tui")
	var created struct{ SessionID string }
	c.WaitAnswer(c.Call("session/new", map[string]any{"cwd": t.TempDir(), "mcpServers": []any{},
		"_meta": map[string]any{"hydra-acp": map[string]any{"mcpStdin": true}}})).Decode(t, &created)
	sid := created.SessionID
	testkit.Equal(t, stopReasonOf(t, c.WaitAnswer(c.Prompt(sid, "hi"))), "end_turn")
	d.call(t, "POST", "/v1/sessions/"+sid+"/stdin/open", map[string]any{"mode": "file"}, http.StatusOK, nil)
	d.call(t, "POST", "/v1/sessions/"+sid+"/stdin", map[string]any{"chunk": b64("some input")}, http.StatusOK, nil)
	d.registerPlugin(t, "extensions", "ext", nil)

	cli(t, nil, "", "agent", "install", "--approve-permissions", "--home", home, filepath.Join("..", "..", "testkit", "agents", "script-report")).ok(t, "agent install")

	for _, f := range []string{"troupe.db", "troupe.db-wal", "troupe.db-shm", "daemon.pid", "daemon.addr", "auth-token",
		"auth-password", "daemon.log", "config.yml", filepath.Join("stdin", sid+".stdin"), filepath.Join("agents", "script-report", "agent.yaml")} {
		if _, err := os.Stat(filepath.Join(home, f)); err != nil {
			t.Fatalf("the daemon's home lacks %s: %v", f, err)
		}
	}
	if loose := homeModes(t, home); len(loose) > 0 {
		t.Fatalf("while the daemon runs, open to other users:\n%s", strings.Join(loose, "\n"))
	}
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, 30*time.Second), 0)
	if loose := homeModes(t, home); len(loose) > 0 {
		t.Fatalf("after the daemon stopped, open to other users:\n%s", strings.Join(loose, "\n"))
	}
}

// A home an older troupe left open (0755 folders, 0644 files, as its
// store, pid file and log were made) is made private by the next daemon,
// which says so in exactly one warning line on stderr; the daemon after
// it, finding nothing to change, says nothing.
func TestDaemonTightensAnOpenHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	d := startDaemon(t, home, nil)
	d.create(t, t.TempDir())
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, 30*time.Second), 0)
	// As the older troupe left it.
	testkit.NoError(t, os.MkdirAll(filepath.Join(home, "configs"), 0o755))
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "configs", "tiny.yml"), []byte("model: /m.gguf\n"), 0o644))
	testkit.NoError(t, os.WriteFile(filepath.Join(home, "daemon.pid"), []byte("1\n"), 0o644))
	testkit.NoError(t, filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		testkit.NoError(t, err)
		mode := os.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(path, mode)
	}))
	if len(homeModes(t, home)) == 0 {
		t.Fatal("the home was not opened up")
	}

	const warning = "the data home was open to other local users"
	d = startDaemon(t, home, nil)
	d.create(t, t.TempDir()) // the store, reopened, still works
	if loose := homeModes(t, home); len(loose) > 0 {
		t.Fatalf("left open to other users:\n%s", strings.Join(loose, "\n"))
	}
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, 30*time.Second), 0)
	var warned []string
	for _, l := range strings.Split(d.proc.Stderr(), "\n") {
		if strings.Contains(l, warning) {
			warned = append(warned, l)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], home) {
		t.Fatalf("want one warning naming %s; stderr:\n%s", home, d.proc.Stderr())
	}

	d = startDaemon(t, home, nil)
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, 30*time.Second), 0)
	if strings.Contains(d.proc.Stderr(), warning) {
		t.Fatalf("a private home warned again:\n%s", d.proc.Stderr())
	}
}
