package pidfile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestAcquireReadRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.pid")
	if pid, held, err := Read(path); pid != 0 || held || err != nil {
		t.Fatalf("missing file: %d %v %v", pid, held, err)
	}
	l, err := Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	if pid, held, err := Read(path); pid != os.Getpid() || !held || err != nil {
		t.Fatalf("held file: %d %v %v", pid, held, err)
	}
	_, err = Acquire(path)
	var he *HeldError
	if !errors.As(err, &he) || he.PID != os.Getpid() {
		t.Fatalf("second acquire: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file left after release: %v", err)
	}
}

// A file whose writer died (here: written by hand, no lock) is stale:
// Read says not held, Acquire takes it over.
func TestStaleFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.pid")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid
	if err := os.WriteFile(path, []byte(strconv.Itoa(dead)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if pid, held, err := Read(path); pid != dead || held || err != nil {
		t.Fatalf("stale file: %d %v %v", pid, held, err)
	}
	l, err := Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	b, _ := os.ReadFile(path)
	if string(b) != strconv.Itoa(os.Getpid())+"\n" {
		t.Fatalf("pid file %q after takeover", b)
	}
}
