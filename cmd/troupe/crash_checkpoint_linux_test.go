package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/testkit"
)

// paddedDeltaLine is a delta big enough (~2 KB) that a stream of them keeps
// the checkpointer busy.
func paddedDeltaLine(n int) string {
	return fmt.Sprintf(`{"kind":"message.delta","payload":{"run_id":"r","message_id":"m","channel":"text","text":"line-%d %s"}}`,
		n, strings.Repeat("x", 2000))
}

// processStopped reports whether pid is in the stopped state (T).
func processStopped(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	rest := stat[strings.LastIndexByte(string(stat), ')')+1:]
	return strings.HasPrefix(strings.TrimSpace(string(rest)), "T")
}

// A SIGKILL that lands while the checkpointer copies the WAL into the
// database loses nothing acknowledged and leaves a sound file. The fault
// build stops the process (SIGSTOP) while a checkpoint is still running, so
// the kill lands inside one deterministically, under a stream of appends.
func TestSIGKILLDuringCheckpointLosesNothingAcknowledged(t *testing.T) {
	bin := testkit.BuildTroupeTags(t, "troupe_faults")
	home := t.TempDir()
	p := testkit.Start(t, bin, []string{"TROUPE_FAULT_CHECKPOINT_STOP=1ms"}, "append", "ckpt", "--home", home)
	go func() {
		for n := 1; ; n++ {
			if _, err := fmt.Fprintln(p.Stdin, paddedDeltaLine(n)); err != nil {
				return // the process is gone
			}
		}
	}()
	acked := map[int]int64{} // input line -> seq
	record := func(line string) {
		var a ack
		testkit.NoError(t, json.Unmarshal([]byte(line), &a))
		if a.Error != "" {
			t.Fatalf("line %d refused: %s", a.Line, a.Error)
		}
		acked[a.Line] = a.Seq
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(p.Stderr(), "stopped inside a checkpoint") {
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint was caught in flight after %d acks: %s", len(acked), p.Stderr())
		}
		if line, ok := p.ReadLine(20 * time.Millisecond); ok {
			record(line)
		}
	}
	testkit.Eventually(t, 10*time.Second, "troupe stopped", func() bool { return processStopped(p.Cmd.Process.Pid) })
	p.Kill()
	p.Wait(t, 10*time.Second)
	for line := range p.Lines() { // acknowledged before the stop
		record(line)
	}
	t.Logf("killed inside a checkpoint after %d acks", len(acked))
	if len(acked) < 100 {
		t.Fatalf("only %d acks before the checkpoint: not under load", len(acked))
	}

	evs := readStored(t, bin, home, "ckpt")
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: gap or duplicate", i, e.Seq)
		}
	}
	for line, seq := range acked {
		if seq > int64(len(evs)) {
			t.Fatalf("acknowledged seq %d (line %d) lost; store ends at %d", seq, line, len(evs))
		}
		if want := fmt.Sprintf(`"text":"line-%d `, line); !strings.Contains(string(evs[seq-1].Payload), want) {
			t.Fatalf("seq %d holds another line than %d", seq, line)
		}
	}

	store, err := persistence.Open(filepath.Join(home, "troupe.db"), persistence.Options{})
	testkit.NoError(t, err)
	defer store.Close()
	verdict, err := store.IntegrityCheck()
	testkit.NoError(t, err)
	testkit.Equal(t, verdict, "ok")
}
