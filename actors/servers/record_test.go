package servers_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors/servers"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/runtime/llamaconfig"
	"github.com/troupehq/troupe/testkit"
)

func openStore(t *testing.T) *persistence.Store {
	t.Helper()
	s, err := persistence.Open(filepath.Join(t.TempDir(), "troupe.db"), persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func records(t *testing.T, s *persistence.Store) []persistence.ServerRecord {
	t.Helper()
	recs, err := s.Servers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestRunningServersAreRecordedInTheStore(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, servers.Options{Store: store})
	got := h.start("tiny", config(t))
	if got.Err != nil {
		t.Fatal(got.Err)
	}
	testkit.Eventually(t, 5*time.Second, "the server's record", func() bool {
		recs := records(t, store)
		return len(recs) == 1 && recs[0].PID == got.Info.PID && recs[0].Port == got.Info.Port &&
			recs[0].PGID == got.Info.PID && recs[0].OwnerPID == os.Getpid()
	})
	if st := h.stop("tiny", 5*time.Second); st != servers.StatusStopped {
		t.Fatal(st)
	}
	testkit.Eventually(t, 5*time.Second, "the record deleted", func() bool { return len(records(t, store)) == 0 })
}

// orphan runs the fake llama-server in its own group, as a server of a
// troupe that died, and returns its record with owner as the owner.
func orphan(t *testing.T, name string, owner int, extra ...string) (persistence.ServerRecord, *exec.Cmd) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cfg := config(t, extra...)
	cmd := exec.Command(cfg.ServerPath, cfg.Args(name, port)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/health"
	testkit.Eventually(t, 10*time.Second, name+" loaded", func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	r := persistence.NewServerRecord(name, cmd.Process.Pid, cmd.Process.Pid, "127.0.0.1", port)
	r.OwnerPID, r.OwnerStarted = owner, 0
	return r, cmd
}

func TestCleanupEndsTheServersOfADeadTroupe(t *testing.T) {
	store := openStore(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	left, leftCmd := orphan(t, "left", dead.Process.Pid, "--fake-ignore-term")
	kept, _ := orphan(t, "kept", os.Getpid())
	gone := left
	gone.Name, gone.PID, gone.Started = "gone", dead.Process.Pid, 1 // its program ended too
	for _, r := range []persistence.ServerRecord{left, kept, gone} {
		if err := store.RecordServer(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	cleaned, err := servers.Cleanup(context.Background(), store, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(cleaned) != 2 || cleaned[0].Name != "gone" || cleaned[1].Name != "left" {
		t.Fatalf("cleaned %+v", cleaned)
	}
	// left ignored SIGTERM: SIGKILL after the grace ended it.
	_ = leftCmd.Wait()
	if ws := leftCmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("left ended with %v", leftCmd.ProcessState)
	}
	recs := records(t, store)
	if len(recs) != 1 || recs[0].Name != "kept" || !recs[0].Running() {
		t.Fatalf("the live troupe's server was touched: %+v", recs)
	}
}

// Reclaim adopts a left server whose config still matches and ends one
// without a config; the supervisor then owns the adopted program: it is
// started at once, restarted as its own child when it dies, and stopped.
func TestReclaimAdoptsAServerLeftRunning(t *testing.T) {
	store := openStore(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	left, leftCmd := orphan(t, "left", dead.Process.Pid)
	unknown, unknownCmd := orphan(t, "unknown", dead.Process.Pid)
	for _, r := range []persistence.ServerRecord{left, unknown} {
		if err := store.RecordServer(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config(t)
	adopt, cleaned, err := servers.Reclaim(context.Background(), store, time.Second, func(name string) (llamaconfig.Config, error) {
		if name == "left" {
			return cfg, nil
		}
		return llamaconfig.Config{}, os.ErrNotExist
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(adopt) != 1 || adopt[0].Record.PID != left.PID || len(cleaned) != 1 || cleaned[0].Name != "unknown" {
		t.Fatalf("adopt %+v, cleaned %+v", adopt, cleaned)
	}
	_ = unknownCmd.Wait()

	h := newHarness(t, servers.Options{Store: store, Backoff: 50 * time.Millisecond})
	h.sys.Root.Send(h.sup, &adopt[0])
	got := h.start("left", cfg)
	if got.Err != nil || got.Info.PID != left.PID || got.Info.Port != left.Port {
		t.Fatalf("start after adopt: %+v (left pid %d port %d)", got, left.PID, left.Port)
	}
	testkit.Eventually(t, 5*time.Second, "the record owned by this process", func() bool {
		recs := records(t, store)
		return len(recs) == 1 && recs[0].PID == left.PID && recs[0].OwnerPID == os.Getpid()
	})

	// It dies on its own: the restart is a program of this troupe.
	_ = leftCmd.Process.Kill()
	_ = leftCmd.Wait()
	var restarted servers.Info
	testkit.Eventually(t, 10*time.Second, "the server restarted", func() bool {
		l := h.list()
		restarted = l[0]
		return len(l) == 1 && l[0].Status == servers.StatusStarted && l[0].PID != left.PID && l[0].PID != 0
	})
	if st := h.stop("left", 5*time.Second); st != servers.StatusStopped {
		t.Fatal(st)
	}
	if alive(restarted.PID) {
		t.Fatalf("pid %d still in /proc after stop", restarted.PID)
	}
}
