package main

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
)

// Two sessions of a daemon on two llama configs, each starting its own
// server on demand. Config a's server is SIGKILLed three times while its
// session streams: each time it is restarted after a longer delay and the
// turn goes on through auto-retry to end_turn; b's server, untouched, serves
// its session throughout. Stopping the daemon ends both servers.
func TestDaemonTwoLlamaConfigsOneCrashing(t *testing.T) {
	home := llamaHome(t, []string{"a", "b"}, "--fake-token-delay", "100ms")
	d := startDaemon(t, home, nil, "--provider", "llama", "--model", "a")
	cwd := t.TempDir()
	ca, cb := d.dialACP(t, "a"), d.dialACP(t, "b")
	sa, _ := ca.NewSession(cwd)
	sb, _ := cb.NewSession(cwd)
	set := cb.WaitAnswer(cb.Call("session/set_model", map[string]any{"sessionId": sb, "modelId": "b"}))
	if set.Error != nil {
		t.Fatalf("set_model b: %s", set.Raw)
	}
	promptA := strings.Repeat("alpha beta gamma delta ", 6)
	promptB := strings.Repeat("one two three ", 10)
	pa, pb := ca.Prompt(sa, promptA), cb.Prompt(sb, promptB)

	store, err := persistence.Open(filepath.Join(home, "troupe.db"), persistence.Options{})
	testkit.NoError(t, err)
	defer store.Close()
	serverPID := func(name string) (int, time.Time) {
		recs, err := store.Servers(context.Background())
		testkit.NoError(t, err)
		for _, r := range recs {
			if r.Name == name && r.Running() {
				return r.PID, r.RecordedAt
			}
		}
		return 0, time.Time{}
	}
	var pidB int
	testkit.Eventually(t, 30*time.Second, "b's server running", func() bool { pidB, _ = serverPID("b"); return pidB != 0 })

	var killed []int
	var delays []time.Duration
	for range 3 {
		// Each kill lands while a's reply streams.
		ca.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })
		pid, _ := serverPID("a")
		if pid == 0 {
			t.Fatal("a's reply streams with no server recorded")
		}
		at := time.Now()
		testkit.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
		killed = append(killed, pid)
		var next int
		var recorded time.Time
		testkit.Eventually(t, 30*time.Second, "a's server restarted", func() bool {
			next, recorded = serverPID("a")
			return next != 0 && next != pid
		})
		delays = append(delays, recorded.Sub(at))
	}
	// The default backoff: 500ms, doubled at each crash.
	for i, want := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second} {
		if delays[i] < want {
			t.Fatalf("restart %d came after %v, before its backoff %v (delays %v)", i+1, delays[i], want, delays)
		}
	}
	fa := ca.Until(func(f acpclient.Frame) bool { return f.Answers(pa) })
	testkit.Equal(t, string(fa[len(fa)-1].Result), `{"stopReason":"end_turn"}`)
	retries := 0
	testkit.NoError(t, store.Load(context.Background(), sa, 0, func(e event.Event) error {
		if e.Kind == event.RetryStarted {
			retries++
		}
		return nil
	}))
	if retries != 3 {
		t.Fatalf("%d retries for 3 kills", retries)
	}
	fb := cb.Until(func(f acpclient.Frame) bool { return f.Answers(pb) })
	testkit.Equal(t, string(fb[len(fb)-1].Result), `{"stopReason":"end_turn"}`)
	if !strings.Contains(acpclient.Chunks(t, fb), strings.TrimSpace(promptB)) {
		t.Fatalf("b's reply: %q", acpclient.Chunks(t, fb))
	}
	if now, _ := serverPID("b"); now != pidB {
		t.Fatalf("b's server changed from %d to %d", pidB, now)
	}
	pidA, _ := serverPID("a")

	d.proc.Signal(syscall.SIGTERM)
	if code := d.proc.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("daemon exit %d:\n%s", code, d.proc.Stderr())
	}
	for _, pid := range append(killed, pidA, pidB) {
		if running(pid) {
			t.Fatalf("server %d still runs after the daemon stopped", pid)
		}
	}
}
