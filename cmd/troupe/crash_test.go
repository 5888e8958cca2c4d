package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

func deltaLine(n int) string {
	return fmt.Sprintf(`{"kind":"message.delta","payload":{"run_id":"r","message_id":"m","channel":"text","text":"line-%d"}}`, n)
}

// readStored returns the session's events through `troupe events`.
func readStored(t *testing.T, bin, home, id string) []event.Event {
	t.Helper()
	p := testkit.Start(t, bin, nil, "events", id, "--home", home)
	var evs []event.Event
	for line := range p.Lines() {
		var e event.Event
		testkit.NoError(t, json.Unmarshal([]byte(line), &e))
		evs = append(evs, e)
	}
	testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
	return evs
}

// The acceptance test of the store: whatever `troupe append` acknowledged
// survives SIGKILL in the middle of a stream, in order, with no duplicate.
func TestSIGKILLLosesNothingAcknowledged(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home := t.TempDir()
	p := testkit.Start(t, bin, nil, "append", "crash", "--home", home)
	go func() {
		for n := 1; ; n++ {
			if _, err := fmt.Fprintln(p.Stdin, deltaLine(n)); err != nil {
				return // the process is gone
			}
		}
	}()
	acked := map[int]int64{} // input line -> seq
	for len(acked) < 2000 {
		line, ok := p.ReadLine(30 * time.Second)
		if !ok {
			t.Fatalf("append stopped early after %d acks: %s", len(acked), p.Stderr())
		}
		var a ack
		testkit.NoError(t, json.Unmarshal([]byte(line), &a))
		if a.Error != "" {
			t.Fatalf("line %d refused: %s", a.Line, a.Error)
		}
		acked[a.Line] = a.Seq
	}
	p.Kill()
	p.Wait(t, 10*time.Second)

	evs := readStored(t, bin, home, "crash")
	seen := map[int64]bool{}
	for i, e := range evs {
		if e.Seq != int64(i+1) || seen[e.Seq] {
			t.Fatalf("event %d has seq %d: gap or duplicate", i, e.Seq)
		}
		seen[e.Seq] = true
	}
	for line, seq := range acked {
		if seq > int64(len(evs)) {
			t.Fatalf("acknowledged seq %d (line %d) lost; store ends at %d", seq, line, len(evs))
		}
		if want := fmt.Sprintf(`"text":"line-%d"`, line); !strings.Contains(string(evs[seq-1].Payload), want) {
			t.Fatalf("seq %d holds %s, want line %d", seq, evs[seq-1].Payload, line)
		}
	}

	// Restart on the same home: the log continues where it stopped.
	p2 := testkit.Start(t, bin, nil, "append", "crash", "--home", home)
	fmt.Fprintln(p2.Stdin, deltaLine(0))
	p2.Stdin.Close()
	line, ok := p2.ReadLine(30 * time.Second)
	if !ok {
		t.Fatalf("no ack after restart: %s", p2.Stderr())
	}
	testkit.Equal(t, line, fmt.Sprintf(`{"line":1,"seq":%d}`, len(evs)+1))
	testkit.Equal(t, p2.Wait(t, 30*time.Second), 0)

	store, err := persistence.Open(filepath.Join(home, "troupe.db"), persistence.Options{})
	testkit.NoError(t, err)
	defer store.Close()
	verdict, err := store.IntegrityCheck()
	testkit.NoError(t, err)
	testkit.Equal(t, verdict, "ok")
}

// SIGTERM stops reading, commits what was sent, and exits cleanly.
func TestSIGTERMShutsDownCleanly(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home := t.TempDir()
	p := testkit.Start(t, bin, nil, "append", "term", "--home", home)
	for n := 1; n <= 10; n++ {
		fmt.Fprintln(p.Stdin, deltaLine(n))
	}
	for range 10 {
		if _, ok := p.ReadLine(30 * time.Second); !ok {
			t.Fatalf("missing ack: %s", p.Stderr())
		}
	}
	p.Signal(syscall.SIGTERM)
	testkit.Equal(t, p.Wait(t, 30*time.Second), 0)
	testkit.Equal(t, len(readStored(t, bin, home, "term")), 11)

	store, err := persistence.Open(filepath.Join(home, "troupe.db"), persistence.Options{})
	testkit.NoError(t, err)
	defer store.Close()
	meta, err := store.Session(context.Background(), "term")
	testkit.NoError(t, err)
	testkit.Equal(t, meta.Status, persistence.StatusCold)
}

func TestCLIUsage(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	p := testkit.Start(t, bin, nil, "frobnicate")
	testkit.Equal(t, p.Wait(t, 10*time.Second), 2)
	if !strings.Contains(p.Stderr(), `unknown command "frobnicate"`) {
		t.Fatalf("stderr: %s", p.Stderr())
	}
	p = testkit.Start(t, bin, nil, "version")
	line, _ := p.ReadLine(10 * time.Second)
	if !strings.HasPrefix(line, "troupe ") {
		t.Fatalf("version: %q", line)
	}
	p = testkit.Start(t, bin, nil, "events", "x", "--home", t.TempDir())
	testkit.Equal(t, p.Wait(t, 10*time.Second), 1)
	if !strings.Contains(p.Stderr(), "no store at") {
		t.Fatalf("stderr: %s", p.Stderr())
	}
}

func TestEventsFollow(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home := t.TempDir()
	app := testkit.Start(t, bin, nil, "append", "f", "--home", home)
	fmt.Fprintln(app.Stdin, deltaLine(1))
	if _, ok := app.ReadLine(30 * time.Second); !ok {
		t.Fatalf("no ack: %s", app.Stderr())
	}
	follow := testkit.Start(t, bin, nil, "events", "--follow", "f", "--from", "2", "--home", home)
	next := func() event.Event {
		line, ok := follow.ReadLine(30 * time.Second)
		if !ok {
			t.Fatalf("follow printed nothing: %s", follow.Stderr())
		}
		var e event.Event
		testkit.NoError(t, json.Unmarshal([]byte(line), &e))
		return e
	}
	testkit.Equal(t, next().Seq, int64(2))
	fmt.Fprintln(app.Stdin, deltaLine(2)) // written by another process while following
	testkit.Equal(t, next().Seq, int64(3))
	follow.Signal(syscall.SIGINT)
	testkit.Equal(t, follow.Wait(t, 10*time.Second), 0)
	app.Stdin.Close()
	testkit.Equal(t, app.Wait(t, 30*time.Second), 0)
}
