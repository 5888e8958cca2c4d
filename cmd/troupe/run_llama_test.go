package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

// serverPIDs reads the llama-server records troupe keeps in the store.
func serverPIDs(t *testing.T, store *persistence.Store) []int {
	t.Helper()
	recs, err := store.Servers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, r := range recs {
		out = append(out, r.PID)
	}
	return out
}

// A session on --provider llama starts its config's server on demand;
// SIGKILLed twice while it streams, the server is restarted and the turn
// completes through auto-retry; when troupe exits, no server is left.
func TestRunOnALlamaConfigSurvivesServerKills(t *testing.T) {
	home := llamaHome(t, []string{"tiny"}, "--fake-token-delay", "150ms")
	prompt := "one two three four five six seven eight nine ten eleven twelve"
	p := testkit.Start(t, testkit.BuildTroupe(t), []string{"TROUPE_HOME=" + home}, "run", "--provider", "llama", "--model", "tiny", prompt)

	// The store is opened once troupe has made and migrated it: its first
	// line names the session, after boot. (Two processes migrating a new
	// store at once collide.)
	first, ok := p.ReadLine(30 * time.Second)
	if !ok || !strings.HasPrefix(first, "session ") {
		t.Fatalf("first line %q; stderr:\n%s", first, p.Stderr())
	}
	store, err := persistence.Open(filepath.Join(home, "troupe.db"), persistence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	session := strings.TrimPrefix(first, "session ")
	// streaming reports whether the reply streams after the k-th retry
	// began: a delta logged after it.
	streaming := func(k int) bool {
		retries, deltas := 0, 0
		_ = store.Load(context.Background(), session, 0, func(e event.Event) error {
			switch {
			case e.Kind == event.RetryStarted:
				retries++
				deltas = 0
			case e.Kind == event.MessageDelta && retries == k:
				deltas++
			}
			return nil
		})
		return retries == k && deltas > 0
	}
	var killed []int
	for round := range 2 {
		// Each kill lands while a reply streams: the first, the retried one.
		testkit.Eventually(t, 30*time.Second, "a reply streaming", func() bool { return streaming(round) })
		var pid int
		testkit.Eventually(t, 30*time.Second, "a running server not yet killed", func() bool {
			for _, p := range serverPIDs(t, store) {
				if !slices.Contains(killed, p) {
					pid = p
					return true
				}
			}
			return false
		})
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed = append(killed, pid)
	}
	if code := p.Wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.Stderr())
	}
	var out strings.Builder
	for line := range p.Lines() {
		out.WriteString(line + "\n")
	}
	if !strings.Contains(out.String(), prompt) {
		t.Fatalf("the echoed reply is not in the transcript:\n%s\nstderr:\n%s", out.String(), p.Stderr())
	}
	// Each kill cost the turn a retry, recorded in the session's log.
	retries := 0
	if err := store.Load(context.Background(), session, 0, func(e event.Event) error {
		if e.Kind == event.RetryStarted {
			retries++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if retries != 2 {
		t.Fatalf("%d retries for 2 kills", retries)
	}
	// The store's last record is the run troupe stopped at exit; its
	// program, like the killed ones, is gone.
	for _, pid := range append(killed, serverPIDs(t, store)...) {
		testkit.Eventually(t, 10*time.Second, "server "+strconv.Itoa(pid)+" gone", func() bool {
			_, err := os.Stat("/proc/" + strconv.Itoa(pid))
			return err != nil
		})
	}
}
