package pidfile

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
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

// Described, the file is Hydra's discovery record, still read for its pid;
// a shorter record after a longer one leaves nothing behind.
func TestDescribe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.pid")
	l, err := Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	long := Info{PID: os.Getpid(), Host: "0000:0000:0000:0000:0000:0000:0000:0001", Port: 55514, LoopbackPort: 55514, StartedAt: "2026-11-27T21:00:00Z"}
	short := Info{PID: os.Getpid(), Host: "::1", Port: 1, LoopbackPort: 1, StartedAt: "2026-11-27T21:00:00Z",
		Args: []string{"--listen=127.0.0.1:0"}, Withheld: []string{"api-key"}}
	for _, info := range []Info{long, short} {
		if err := l.Describe(info); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var got Info
		if err := json.Unmarshal(b, &got); err != nil || !reflect.DeepEqual(got, info) {
			t.Fatalf("file %q: %+v %v", b, got, err)
		}
		if pid, held, err := Read(path); pid != os.Getpid() || !held || err != nil {
			t.Fatalf("described file: %d %v %v", pid, held, err)
		}
		if got, held, err := ReadInfo(path); !reflect.DeepEqual(got, info) || !held || err != nil {
			t.Fatalf("ReadInfo: %+v %v %v", got, held, err)
		}
	}
}
