package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// troupe events reads a store it may not write, in a home it may not
// write, and leaves the file's bytes and mtime as they were (issue 25,
// item 21: it failed with "attempt to write a readonly database"). Root
// writes through mode bits, so as root the binary runs as nobody.
func TestEventsOnReadOnlyStore(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	dir, err := os.MkdirTemp("", "troupe-ro-events-")
	testkit.NoError(t, err)
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(dir, "home"), 0o700); _ = os.RemoveAll(dir) })
	testkit.NoError(t, os.Chmod(dir, 0o755)) // nobody must reach the binary
	exe := filepath.Join(dir, "troupe")
	copyFile(t, bin, exe, 0o755)
	home := filepath.Join(dir, "home")
	acks, code := appendAll(t, exe, home, "ro", deltaLine(1)+"\n"+deltaLine(2)+"\n")
	testkit.Equal(t, code, 0)
	testkit.Equal(t, len(acks), 2)

	store := filepath.Join(home, "troupe.db")
	entries, err := os.ReadDir(home)
	testkit.NoError(t, err)
	for _, e := range entries {
		testkit.NoError(t, os.Chmod(filepath.Join(home, e.Name()), 0o444))
	}
	testkit.NoError(t, os.Chmod(home, 0o555))
	before, beforeInfo := readWithInfo(t, store)

	out, stderr, code := runAsNobody(t, exe, "events", "ro", "--home", home)
	testkit.Equal(t, stderr, "")
	testkit.Equal(t, code, 0)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	testkit.Equal(t, len(lines), 3) // session.created and the two deltas
	if !strings.Contains(lines[2], `"message.delta"`) {
		t.Fatalf("last event is not the delta: %s", lines[2])
	}

	after, afterInfo := readWithInfo(t, store)
	if !bytes.Equal(before, after) {
		t.Fatal("troupe events changed the store's bytes")
	}
	testkit.Equal(t, afterInfo.ModTime(), beforeInfo.ModTime())
	left, err := os.ReadDir(home)
	testkit.NoError(t, err)
	testkit.Equal(t, len(left), len(entries))
}

// A store at an older schema than the binary's is refused by a reading
// command with what to do, and left unmigrated.
func TestEventsOnOlderStoreSaysSo(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home := t.TempDir()
	_, code := appendAll(t, bin, home, "old", deltaLine(1)+"\n")
	testkit.Equal(t, code, 0)
	store := filepath.Join(home, "troupe.db")
	sqlite := exec.Command("sqlite3", store, "PRAGMA user_version = 1")
	if out, err := sqlite.CombinedOutput(); err != nil {
		t.Skipf("no sqlite3 shell to age the store: %v %s", err, out)
	}
	before, _ := readWithInfo(t, store)
	p := testkit.Start(t, bin, nil, "events", "old", "--home", home)
	_ = p.Stdin.Close()
	testkit.Equal(t, p.Wait(t, 30*time.Second), 1)
	if !strings.Contains(p.Stderr(), "has schema version 1, older than this troupe's") {
		t.Fatalf("stderr: %q", p.Stderr())
	}
	after, _ := readWithInfo(t, store)
	if !bytes.Equal(before, after) {
		t.Fatal("troupe events migrated the older store")
	}
}

func readWithInfo(t *testing.T, path string) ([]byte, os.FileInfo) {
	t.Helper()
	b, err := os.ReadFile(path)
	testkit.NoError(t, err)
	fi, err := os.Stat(path)
	testkit.NoError(t, err)
	return b, fi
}

// runAsNobody runs the binary as nobody when the test runs as root (whom
// mode bits do not stop), as the user otherwise.
func runAsNobody(t *testing.T, exe string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	if os.Getuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), errb.String(), exit.ExitCode()
	case err != nil:
		if os.Getuid() == 0 {
			t.Skipf("cannot run the binary as nobody: %v", err)
		}
		t.Fatalf("run %v: %v", args, err)
	}
	return out.String(), errb.String(), 0
}
