package rpc

import (
	"io"
	"testing"
)

func TestMeterWakesOnceTheBacklogDrains(t *testing.T) {
	woke := 0
	m := &meter{w: io.Discard, wake: func() { woke++ }}
	line := make([]byte, backlogHigh/2)
	m.sent(line)
	if m.behind() {
		t.Fatal("behind with half the high mark queued")
	}
	m.sent(line)
	m.sent(line)
	if !m.behind() {
		t.Fatal("not behind with 1.5 times the high mark queued")
	}
	// Written down to just above the low mark: still waiting.
	m.Write(make([]byte, 3*len(line)+3-backlogLow-1))
	if woke != 0 {
		t.Fatal("woke above the low mark")
	}
	m.Write(make([]byte, 1))
	m.Write(make([]byte, 1))
	if woke != 1 {
		t.Fatalf("woke %d times once drained, want 1", woke)
	}
	if m.behind() {
		t.Fatal("behind once drained")
	}
}
