package main

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A client that reads slowly during a 100,000-delta reply gets every delta
// once, in order, while a fast client on the same session reads the whole
// reply before the slow one is through, and the daemon's peak resident
// memory stays bounded: the slow client catches up from the store rather
// than the daemon queueing its frames.
func TestDaemonACPSlowClientDuringLongReply(t *testing.T) {
	const deltas = 100_000
	env, model := llmEnv(t, llmserver.Steps(llmserver.Tokens(deltas, "x")))
	// The daemon's peak resident memory is its own process's.
	d := startDaemonBinary(t, t.TempDir(), env, append(model, "--approval-mode", "yolo")...)
	fast := d.dialACP(t, "fast")
	sid, _ := fast.NewSession(t.TempDir())
	slow := d.dialACP(t, "slow")
	slow.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})

	var slowRead atomic.Int64
	slowSeqs := make(chan []int64, 1)
	go func() {
		// Reads on its own goroutine, pausing 300 ms every 1,000 frames
		// (at least 30 s for the reply); a failure ends it short.
		var seqs []int64
		defer func() { slowSeqs <- seqs }()
		for n := 1; ; n++ {
			if n%1000 == 0 {
				time.Sleep(300 * time.Millisecond)
			}
			_ = slow.WS.SetReadDeadline(time.Now().Add(2 * time.Minute))
			_, b, err := slow.WS.ReadMessage()
			if err != nil {
				return
			}
			s := string(b)
			if strings.Contains(s, `"sessionUpdate":"agent_message_chunk"`) {
				seqs = append(seqs, anchorSeq(s))
				slowRead.Add(1)
			}
			if strings.Contains(s, `"sessionUpdate":"turn_complete"`) {
				return
			}
		}
	}()

	start := time.Now()
	pid := fast.Prompt(sid, "go on")
	var fastSeqs []int64
	_ = fast.WS.SetReadDeadline(time.Now().Add(2 * time.Minute))
	for {
		_, b, err := fast.WS.ReadMessage()
		testkit.NoError(t, err)
		s := string(b)
		if strings.Contains(s, `"sessionUpdate":"agent_message_chunk"`) {
			fastSeqs = append(fastSeqs, anchorSeq(s))
		}
		if strings.HasPrefix(s, `{"jsonrpc":"2.0","id":`+strconv.Itoa(pid)+`,`) {
			break
		}
	}
	slowAtFastEnd, fastTook := slowRead.Load(), time.Since(start)
	testkit.Equal(t, len(fastSeqs), deltas)
	requireSeqsIncreasing(t, "fast", fastSeqs)
	if slowAtFastEnd >= deltas {
		t.Fatalf("the slow client had read all %d deltas when the fast one finished: the fast one waited for it", slowAtFastEnd)
	}

	got := <-slowSeqs
	testkit.Equal(t, len(got), deltas)
	requireSeqsIncreasing(t, "slow", got)
	testkit.DeepEqual(t, got, fastSeqs)

	hwm := procStatusMB(t, d.proc.Pid(), "VmHWM:")
	t.Logf("daemon peak resident memory %.1f MB; the fast client read the reply in %s (%.0f deltas/s), when the slow one had read %d of %d",
		hwm, fastTook.Round(time.Millisecond), deltas/fastTook.Seconds(), slowAtFastEnd, deltas)
	if hwm > 300 {
		t.Fatalf("daemon peak resident memory %.1f MB, over 300 MB", hwm)
	}
}

// anchorSeq is the seq of a session/update frame's messageId (ev-<seq>,
// or ev-<seq>.<index>).
func anchorSeq(frame string) int64 {
	_, rest, ok := strings.Cut(frame, `"messageId":"ev-`)
	if !ok {
		return -1
	}
	end := strings.IndexAny(rest, `".`)
	if end < 0 {
		return -1
	}
	n, err := strconv.ParseInt(rest[:end], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func requireSeqsIncreasing(t *testing.T, who string, seqs []int64) {
	t.Helper()
	for i, s := range seqs {
		if s <= 0 || (i > 0 && s <= seqs[i-1]) {
			t.Fatalf("%s: delta %d has seq %d after %d", who, i, s, seqs[max(i-1, 0)])
		}
	}
}

// procStatusMB reads a memory line (VmHWM:, VmRSS:) of /proc/PID/status in MB.
func procStatusMB(t *testing.T, pid int, field string) float64 {
	t.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	testkit.NoError(t, err)
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			testkit.NoError(t, err)
			return kb / 1024
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
