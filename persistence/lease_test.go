package persistence

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// holderProcess starts a real process to stand for another troupe holding a
// lease; kill ends it (and reaps it, so it is not a zombie).
func holderProcess(t *testing.T) (pid int, kill func()) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := false
	kill = func() {
		if done {
			return
		}
		done = true
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	t.Cleanup(kill)
	return cmd.Process.Pid, kill
}

func openAs(t *testing.T, path string, o Owner, ttl time.Duration) *Store {
	t.Helper()
	s, err := Open(path, Options{Owner: o, LeaseTTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func owner(id string, pid int, host string) Owner {
	return Owner{ID: id, PID: pid, Host: host, Started: procStart(pid), Command: "troupe test " + id}
}

func mustCommit(t *testing.T, s *Store, b Batch) Outcome {
	t.Helper()
	out, err := s.Commit(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestClaimIsRefusedWhileTheHolderLives(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	self := ThisProcess("test")
	pid, kill := holderProcess(t)
	a := openAs(t, path, owner("a", pid, self.Host), time.Hour)
	b := openAs(t, path, self, time.Hour)

	if out := mustCommit(t, a, Batch{Claims: []string{"s"}}); len(out.Refused) != 0 {
		t.Fatalf("first claim refused: %+v", out.Refused)
	}
	out := mustCommit(t, b, Batch{Claims: []string{"s"}})
	h, ok := out.Refused["s"]
	if !ok || h.ID != "a" || h.PID != pid {
		t.Fatalf("second claim: %+v", out)
	}
	msg := (&LeaseHeldError{Holder: h}).Error()
	if !strings.Contains(msg, "session s is running in troupe pid") || !strings.Contains(msg, "(troupe test a)") {
		t.Fatalf("error text: %s", msg)
	}
	// The holder dies: its pid is gone on this host, so the lease passes at once.
	kill()
	if out := mustCommit(t, b, Batch{Claims: []string{"s"}}); len(out.Refused) != 0 {
		t.Fatalf("claim after the holder died: %+v", out.Refused)
	}
	l, err := b.Lease(context.Background(), "s")
	if err != nil || l == nil || l.ID != self.ID {
		t.Fatalf("lease now %+v, %v", l, err)
	}
}

func TestLeaseOfAnotherHostPassesWhenItsHeartbeatLapses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	ttl := 200 * time.Millisecond
	a := openAs(t, path, Owner{ID: "a", PID: 1, Host: "elsewhere"}, ttl)
	b := openAs(t, path, ThisProcess("test"), ttl)
	mustCommit(t, a, Batch{Claims: []string{"s"}})
	if out := mustCommit(t, b, Batch{Claims: []string{"s"}}); out.Refused["s"].ID != "a" {
		t.Fatalf("claim while the heartbeat is fresh: %+v", out)
	}
	// Renewing keeps it; stopping renewing lets it lapse.
	deadline := time.Now().Add(2 * ttl)
	for time.Now().Before(deadline) {
		mustCommit(t, a, Batch{Renew: true})
		if out := mustCommit(t, b, Batch{Claims: []string{"s"}}); len(out.Refused) == 0 {
			t.Fatal("a renewed lease was taken")
		}
		time.Sleep(ttl / 4)
	}
	time.Sleep(ttl + 50*time.Millisecond)
	if out := mustCommit(t, b, Batch{Claims: []string{"s"}}); len(out.Refused) != 0 {
		t.Fatalf("a lapsed lease was refused: %+v", out.Refused)
	}
}

func TestWritesWithoutTheLeaseAreSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	ttl := 100 * time.Millisecond
	a := openAs(t, path, Owner{ID: "a", PID: 1, Host: "elsewhere"}, ttl)
	b := openAs(t, path, ThisProcess("test"), ttl)
	ctx := context.Background()
	mustCommit(t, a, Batch{Claims: []string{"s", "t"}, Metas: []SessionMeta{{ID: "s"}, {ID: "t"}}, Events: events("s", 1, 2)})
	// a stalls past its TTL; b takes s over and writes to it.
	time.Sleep(2 * ttl)
	mustCommit(t, b, Batch{Claims: []string{"s"}, Events: events("s", 3, 1)})

	// a wakes up: its write to s is skipped and reported, its write to t
	// (whose lease nobody took) goes in.
	out := mustCommit(t, a, Batch{Events: append(events("s", 3, 2), events("t", 1, 1)...),
		Statuses: []StatusChange{{SessionID: "s", Status: StatusCold}}})
	if !out.Lost["s"] || out.Lost["t"] {
		t.Fatalf("lost %v", out.Lost)
	}
	last, err := a.LastSeq(ctx, "s")
	if err != nil || last != 3 {
		t.Fatalf("s last seq %d, %v (b's event only)", last, err)
	}
	if last, err := a.LastSeq(ctx, "t"); err != nil || last != 1 {
		t.Fatalf("t last seq %d, %v", last, err)
	}
	if m, _ := a.Session(ctx, "s"); m.Status != StatusLive {
		t.Fatalf("a's status change went in: %s", m.Status)
	}
}

func TestCloseAndReleaseGiveLeasesBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	a, err := Open(path, Options{Owner: owner("a", 1, "elsewhere")})
	if err != nil {
		t.Fatal(err)
	}
	b := openAs(t, path, ThisProcess("test"), time.Hour)
	mustCommit(t, a, Batch{Claims: []string{"s", "t"}})
	mustCommit(t, a, Batch{Releases: []string{"s"}})
	if out := mustCommit(t, b, Batch{Claims: []string{"s", "t"}}); len(out.Refused) != 1 || out.Refused["t"].ID != "a" {
		t.Fatalf("after releasing s: %+v", out.Refused)
	}
	mustCommit(t, b, Batch{Releases: []string{"s"}})
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if out := mustCommit(t, b, Batch{Claims: []string{"t"}}); len(out.Refused) != 0 {
		t.Fatalf("after a closed: %+v", out.Refused)
	}
}

func TestStoreWithoutOwnerWritesWithoutLeases(t *testing.T) {
	s := openTemp(t)
	out := mustCommit(t, s, Batch{Claims: []string{"s"}, Metas: []SessionMeta{{ID: "s"}}, Events: events("s", 1, 1)})
	if len(out.Refused) != 0 || len(out.Lost) != 0 {
		t.Fatalf("%+v", out)
	}
	if l, err := s.Lease(context.Background(), "s"); err != nil || l != nil {
		t.Fatalf("lease %+v, %v", l, err)
	}
}

// The lease check remembers held sessions between commits (heldcache.go);
// a lease another process takes must still fence the next write.
func TestRememberedLeaseTakenOverIsFenced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	ttl := 100 * time.Millisecond
	a := openAs(t, path, Owner{ID: "a", PID: 1, Host: "elsewhere"}, ttl)
	b := openAs(t, path, ThisProcess("test"), ttl)
	mustCommit(t, a, Batch{Claims: []string{"s"}, Metas: []SessionMeta{{ID: "s"}}})
	for seq := 1; seq <= 3; seq++ { // checked once, then remembered
		if out := mustCommit(t, a, Batch{Events: events("s", seq, 1)}); len(out.Lost) != 0 {
			t.Fatalf("write %d lost: %v", seq, out.Lost)
		}
	}
	time.Sleep(2 * ttl)
	mustCommit(t, b, Batch{Claims: []string{"s"}, Events: events("s", 4, 1)})
	if out := mustCommit(t, a, Batch{Events: events("s", 4, 1)}); !out.Lost["s"] {
		t.Fatalf("write after the takeover not fenced: %+v", out)
	}
}

// A claim in a transaction that failed was never taken, so it must not be
// remembered as held.
func TestClaimOfAFailedCommitIsNotRemembered(t *testing.T) {
	s := openAs(t, filepath.Join(t.TempDir(), "troupe.db"), ThisProcess("test"), time.Hour)
	mustCommit(t, s, Batch{Claims: []string{"s"}, Metas: []SessionMeta{{ID: "s"}}, Events: events("s", 1, 1)})
	// A full store fails the whole batch, claim of x included. (A seq
	// collision no longer does: it leaves out that session's writes
	// alone.) SQLite's max_page_count makes the store full at its size.
	fillStore(t, s)
	if _, err := s.Commit(context.Background(), Batch{Claims: []string{"x"}, Metas: []SessionMeta{{ID: "x"}},
		Events: append(events("x", 1, 1), events("s", 2, 2000)...)}); !errors.Is(err, ErrDiskFull) {
		t.Fatalf("a batch on a full store: %v, want ErrDiskFull", err)
	}
	unfillStore(t, s)
	out := mustCommit(t, s, Batch{Metas: []SessionMeta{{ID: "x"}}, Events: events("x", 1, 1)})
	if !out.Lost["x"] {
		t.Fatalf("write to an unclaimed session not fenced: %+v", out)
	}
	if h, err := s.Lease(context.Background(), "x"); err != nil || h != nil {
		t.Fatalf("lease of x: %+v, %v", h, err)
	}
}
