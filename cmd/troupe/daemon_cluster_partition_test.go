package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A member frozen with SIGSTOP mid-run, past its lease TTL (2 s): the
// other members take its sessions over from the store under a newer
// lease epoch and finish their runs, which their clients (on another
// member) see to the end. Resumed with SIGCONT, the frozen member goes on
// with the runs it had, and the store refuses their writes by the fencing
// epoch (troupe_store_fenced_writes_total on it), so each log has every
// seq once and one run.ended per prompt, and the member drops the
// sessions it no longer owns; they answer through the others.
func TestDaemonClusterPartitionFencesTheFrozenMember(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: ptr(llmserver.Steps(
		llmserver.Text("before "), llmserver.Delay(3*time.Second), llmserver.Text("after")))})
	logDir := t.TempDir()
	logs := []string{filepath.Join(logDir, "0.log"), filepath.Join(logDir, "1.log"), filepath.Join(logDir, "2.log")} // each member's --log-file
	cl := startPGClusterOn(t, 3, "partition", srv, func(i int) []string { return []string{"--log-file", logs[i]} }, "--lease-ttl", "2s")
	members, store := cl.members, cl.store

	// Clients on member 0; the member frozen is the other one hosting
	// the most of their sessions.
	type client struct {
		c      *acpclient.Client
		id     string
		prompt int
		got    []acpclient.Frame
	}
	var clients []*client
	for i := range 9 {
		c := &client{c: members[0].dialACP(t, "client-"+strconv.Itoa(i))}
		c.c.Wait = time.Minute
		c.id, _ = c.c.NewSession(t.TempDir())
		clients = append(clients, c)
	}
	frozen, most := 0, 0
	for i := 1; i < 3; i++ {
		if n := hostOf(t, members[0], clusterHealth(t, members[i]).Self); n > most {
			frozen, most = i, n
		}
	}
	if most == 0 {
		t.Fatal("members 1 and 2 host none of nine sessions")
	}
	for _, c := range clients {
		c.prompt = c.c.Prompt(c.id, "go")
	}
	for _, c := range clients {
		c.got = c.c.Until(func(f acpclient.Frame) bool { return strings.Contains(acpclient.Chunks(t, append(c.got, f)), "before") })
	}
	fencedBefore := members[frozen].scrape(t).value("troupe_store_fenced_writes_total")
	t.Logf("SIGSTOP member %d, hosting %d of the sessions mid-run", frozen, most)
	testkit.NoError(t, syscall.Kill(members[frozen].proc.Pid(), syscall.SIGSTOP))
	stopped := time.Now()
	resumed := false
	defer func() {
		if !resumed {
			_ = syscall.Kill(members[frozen].proc.Pid(), syscall.SIGCONT)
		}
	}()

	// The others take the sessions over and finish every run.
	for _, c := range clients {
		c.c.Until(func(f acpclient.Frame) bool { c.got = append(c.got, f); return f.Answers(c.prompt) })
		if f := c.got[len(c.got)-1]; f.Error != nil {
			t.Fatalf("session %s: the prompt's answer: %s", c.id, f.Raw)
		}
		if !strings.HasSuffix(acpclient.Chunks(t, c.got), "after") {
			t.Fatalf("session %s: the client saw %q", c.id, acpclient.Chunks(t, c.got))
		}
	}
	t.Logf("every run finished by the other members %s after the freeze", time.Since(stopped).Round(time.Millisecond))
	s, err := persistence.OpenPostgres(store, persistence.Options{})
	testkit.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	taken := 0
	for _, c := range clients {
		h, err := s.Lease(ctx, c.id)
		testkit.NoError(t, err)
		if h != nil && h.Epoch > 1 {
			taken++
		}
	}
	if taken < most {
		t.Fatalf("%d sessions were taken over under a newer epoch; the frozen member hosted %d", taken, most)
	}

	// Resumed, the frozen member's writes are refused.
	testkit.NoError(t, syscall.Kill(members[frozen].proc.Pid(), syscall.SIGCONT))
	resumed = true
	members[frozen].untilMetric(t, "the resumed member's writes fenced", func(sc scrape) bool {
		return sc.value("troupe_store_fenced_writes_total") > fencedBefore
	})
	// And says so in its log.
	testkit.Eventually(t, 30*time.Second, "the resumed member's log naming its writes fenced", func() bool {
		b, _ := os.ReadFile(logs[frozen])
		return strings.Contains(string(b), "writes were fenced: another process holds its lease now")
	})
	// It drops them: its runs' sessions stop once fenced. (The others
	// keep it out of the topology: protoactor blocks a member id once it
	// left, so it hosts no session until it is restarted.)
	self := clusterHealth(t, members[frozen]).Self
	testkit.Eventually(t, 60*time.Second, "the resumed member hosting none of the sessions", func() bool {
		return hostOf(t, members[frozen], self) == 0
	})
	// Each log: every seq once, one run for the one prompt.
	for _, c := range clients {
		var next int64 = 1
		ended := 0
		testkit.NoError(t, s.Load(ctx, c.id, 1, func(e event.Event) error {
			if e.Seq != next {
				return fmt.Errorf("session %s: seq %d where %d was due", c.id, e.Seq, next)
			}
			next++
			if e.Kind == event.RunEnded {
				ended++
			}
			return nil
		}))
		testkit.Equal(t, ended, 1)
	}
	// And the sessions still answer, wherever they are now.
	for _, c := range clients[:3] {
		if f := c.c.WaitAnswer(c.c.Prompt(c.id, "again")); f.Error != nil {
			t.Fatalf("session %s after the member resumed: %s", c.id, f.Raw)
		}
	}
}
