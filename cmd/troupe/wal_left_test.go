package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// A process SIGKILLed while it writes leaves its WAL behind, never
// truncated (that waits for a second without commits). The next process to
// open the store folds it into the database before writing, so a series of
// kills under load (the soak's daemon restarts) does not grow it without
// bound, each start reading all of it; nothing acknowledged is lost.
func TestStoreOpenTruncatesWALLeftByKill(t *testing.T) {
	bin := testkit.BuildTroupe(t)
	home := t.TempDir()
	wal := filepath.Join(home, "troupe.db-wal")
	walSize := func() int64 {
		fi, err := os.Stat(wal)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	p := testkit.Start(t, bin, nil, "append", "left", "--home", home)
	go func() {
		for n := 1; ; n++ {
			if _, err := fmt.Fprintln(p.Stdin, paddedDeltaLine(n)); err != nil {
				return // the process is gone
			}
		}
	}()
	acked := 0
	deadline := time.Now().Add(60 * time.Second)
	for walSize() < 16<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("the WAL is %d bytes after %d acks: not growing", walSize(), acked)
		}
		if _, ok := p.ReadLine(20 * time.Millisecond); ok {
			acked++
		}
	}
	p.Kill()
	p.Wait(t, 10*time.Second)
	for range p.Lines() {
		acked++
	}
	left := walSize()
	t.Logf("killed after %d acks, leaving a WAL of %d bytes", acked, left)

	d := startDaemon(t, home, nil)
	if got := walSize(); got >= 4<<20 {
		t.Fatalf("the daemon started on a WAL of %d bytes and left it at %d", left, got)
	}
	if evs := readStored(t, bin, home, "left"); len(evs) < acked {
		t.Fatalf("%d events stored, %d acknowledged", len(evs), acked)
	}
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, 30*time.Second), 0)
}
