package acp_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/transports/acp"
)

// history builds a session's log of whole turns, each with a reply, a
// tool call (every turn's is "c1": a later one still shows as an update
// of the call shown first) and its usage; every fifth turn changes the
// title and the approval mode first. quiet are the seqs after which no run
// is under way.
type history struct {
	t      testing.TB
	drafts []event.Draft
	seq    int64 // the seq of the last draft
	quiet  []int64
}

func (h *history) add(kind event.Kind, p any) {
	d, err := event.NewDraft(kind, p)
	testkit.NoError(h.t, err)
	h.drafts = append(h.drafts, d)
	h.seq++
}

func (h *history) turn(i int, end bool) {
	if i%5 == 0 {
		title, mode := fmt.Sprintf("title %d", i), []string{event.ApprovalYolo, event.ApprovalDefault}[i/5%2]
		h.add(event.SessionSettingsChanged, event.Settings{Title: &title, ApprovalMode: &mode})
		h.quiet = append(h.quiet, h.seq)
	}
	run, msg := fmt.Sprintf("run-%d", i), fmt.Sprintf("msg-%d", i)
	h.add(event.PromptQueued, event.PromptQueuedPayload{MessageID: run, Content: []event.Block{{Type: "text", Text: fmt.Sprintf("prompt %d", i)}}, Delivery: event.DeliveryPrompt})
	h.add(event.RunStarted, event.RunStartedPayload{RunID: run})
	h.add(event.StepStarted, event.StepStartedPayload{RunID: run, Step: 1, MessageID: msg})
	for j := range 4 {
		h.add(event.MessageDelta, event.MessageDeltaPayload{RunID: run, MessageID: msg, Channel: event.ChannelText, Text: fmt.Sprintf("r%d.%d ", i, j)})
	}
	h.add(event.MessageCompleted, event.MessageCompletedPayload{RunID: run, MessageID: msg, Text: "reply"})
	h.add(event.ToolStarted, event.ToolStartedPayload{RunID: run, ToolCallID: "c1", Name: "bash", Category: "exec", Arguments: `{"command":"true"}`, Origin: "native", MessageID: msg})
	h.add(event.ToolProgress, event.ToolProgressPayload{RunID: run, ToolCallID: "c1", Output: "out"})
	if !end {
		return
	}
	h.add(event.ToolCompleted, event.ToolCompletedPayload{RunID: run, ToolCallID: "c1", Name: "bash", Status: "success", Output: "out"})
	usage := event.Usage{Input: int64(100 * i), Output: 7}
	h.add(event.StepEnded, event.StepEndedPayload{RunID: run, Step: 1, MessageID: msg, FinishReason: "stop", Usage: usage})
	h.add(event.RunEnded, event.RunEndedPayload{RunID: run, StopReason: "end_turn", Usage: usage})
	h.quiet = append(h.quiet, h.seq)
}

func (h *history) append(r *wsRig, sid string) {
	h.t.Helper()
	var last int64
	for ds := range slices.Chunk(h.drafts, 5000) {
		var err error
		_, last, err = r.rt.Sessions.Append(context.Background(), sid, ds...)
		testkit.NoError(h.t, err)
	}
	testkit.Equal(h.t, last, h.seq)
	h.drafts = nil
}

// waitSnapshot waits for session sid's attach snapshot to stand at seq.
func waitSnapshot(t testing.TB, r *wsRig, sid string, seq int64) {
	t.Helper()
	at := func() int64 {
		snap, ok, err := r.rt.Store.LoadSnapshot(context.Background(), sid, "acp.attach", 1)
		testkit.NoError(t, err)
		if !ok {
			return 0
		}
		return snap.Seq
	}
	for deadline := time.Now().Add(time.Minute); at() != seq; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the attach snapshot stands at %d, want %d", at(), seq)
		}
	}
}

// snapshotPoint is where attachments taking a snapshot every events leave
// the last one: the first quiet seq at least every past the one before.
func (h *history) snapshotPoint(every int64) int64 {
	var at int64
	for _, q := range h.quiet {
		if q-at >= every {
			at = q
		}
	}
	return at
}

// An attach after_message an update id reads the log only past the
// session's attach snapshot, when that stands no later than the anchor,
// and replays exactly what a fold from seq 1 replays; an anchor before the
// snapshot is never served from it: that attach folds from seq 1. An
// attach that replays no history (pending_only) is served by any.
func TestWebSocketAttachAfterMessageReadsOnlyTheTail(t *testing.T) {
	const every = 60
	var cfg acp.WebSocketConfig
	r := newWSRig(t, llmserver.Script{}, event.ApprovalYolo, func(c *acp.WebSocketConfig) {
		c.AttachSnapshotEvery = every
		cfg = *c
	})
	// The same runtime served with no attach snapshots: every attach
	// folds from seq 1, as before them.
	cfg.AttachSnapshotEvery = -1
	plain := httptest.NewServer(acp.WebSocketHandler(cfg))
	t.Cleanup(plain.Close)
	dialPlain := func() *acpclient.Client {
		return acpclient.Dial(t, acpclient.Options{URL: acpclient.URL(plain.URL, "", ""),
			Subprotocols: []string{acp.Subprotocol, acpclient.TokenEntry("secret")}, Name: "plain", Wait: 10 * time.Second})
	}

	w := r.dial(t, "writer")
	sid, _ := w.NewSession(r.cwd)
	h := &history{t: t, seq: 1} // session.created is seq 1
	for i := 1; i <= 36; i++ {
		h.turn(i, true)
	}
	// The log goes on past the last snapshot: a run still under way.
	h.turn(37, false)
	h.append(r, sid)
	want := h.snapshotPoint(every)
	// A viewer replays the whole history (the writer's attachment folds
	// it live): they take the snapshots on the way.
	v := r.dial(t, "viewer")
	v.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
	waitSnapshot(t, r, sid, want)

	replay := func(c *acpclient.Client, anchor string) ([]string, int64) {
		before := r.rt.Store.EventsRead()
		params := map[string]any{"sessionId": sid, "historyPolicy": "after_message", "afterMessageId": anchor}
		if !strings.HasPrefix(anchor, "ev-") {
			params = map[string]any{"sessionId": sid, "historyPolicy": anchor}
		}
		fs, res := c.Attach(params)
		read := r.rt.Store.EventsRead() - before
		testkit.Equal(t, res.Replayed, len(fs))
		var ups []string
		for _, f := range fs {
			ups = append(ups, f.Raw)
		}
		return ups, read
	}
	for _, tc := range []struct {
		anchor string
		tail   bool // served from the snapshot
	}{
		{anchor: fmt.Sprintf("ev-%d", want), tail: true},
		{anchor: fmt.Sprintf("ev-%d", want+4), tail: true},
		{anchor: fmt.Sprintf("ev-%d.0", want+2), tail: true},
		{anchor: fmt.Sprintf("ev-%d.0", want), tail: false},
		{anchor: fmt.Sprintf("ev-%d", want-20), tail: false},
		{anchor: "ev-100000", tail: true}, // past the log's end: nothing but the state
		// No history, the state alone: from any snapshot.
		{anchor: "pending_only", tail: true},
	} {
		t.Run(tc.anchor, func(t *testing.T) {
			got, read := replay(r.dial(t, "tail"), tc.anchor)
			whole, wholeRead := replay(dialPlain(), tc.anchor)
			testkit.Equal(t, strings.Join(got, "\n"), strings.Join(whole, "\n"))
			if len(got) == 0 {
				t.Fatal("nothing replayed, not even the state")
			}
			// The state closes the replay, as the snapshot kept it.
			for _, kind := range []string{"session_info_update", "current_mode_update", "usage_update"} {
				testkit.Equal(t, strings.Contains(strings.Join(got, "\n"), `"sessionUpdate":"`+kind+`"`), true)
			}
			testkit.Equal(t, wholeRead >= h.seq, true)
			if tc.tail {
				// Only the events past the snapshot.
				testkit.Equal(t, read, h.seq-want)
			} else {
				testkit.Equal(t, read >= h.seq, true)
			}
		})
	}
}

// BenchmarkAttachAfterMessage: a client attaches after_message the last
// update of a session of 1,000 or 100,000 events (whole turns), served
// with attach snapshots (every 1,000 events, the default) or without
// (every attach folds from seq 1, as before them). ns/op is the attach
// alone, from the request to its answer; events-read/op what it read of
// the log.
func BenchmarkAttachAfterMessage(b *testing.B) {
	for _, turns := range []int{80, 7000} {
		var cfg acp.WebSocketConfig
		r := newWSRig(b, llmserver.Script{}, event.ApprovalYolo, func(c *acp.WebSocketConfig) { cfg = *c })
		cfg.AttachSnapshotEvery = -1
		plain := httptest.NewServer(acp.WebSocketHandler(cfg))
		b.Cleanup(plain.Close)
		w := r.dial(b, "writer")
		sid, _ := w.NewSession(r.cwd)
		h := &history{t: b, seq: 1}
		for i := 1; i <= turns; i++ {
			h.turn(i, true)
		}
		// The writer reads nothing more: it leaves, and a viewer's replay
		// of the whole history takes the snapshots.
		_ = w.WS.Close()
		h.append(r, sid)
		v := r.dial(b, "viewer")
		v.Attach(map[string]any{"sessionId": sid, "historyPolicy": "full"})
		waitSnapshot(b, r, sid, h.snapshotPoint(acp.DefaultAttachSnapshotEvery))
		for _, srv := range []struct{ name, url string }{{"snapshot", r.srv.URL}, {"from-seq-1", plain.URL}} {
			b.Run(fmt.Sprintf("events=%d/%s", h.seq, srv.name), func(b *testing.B) {
				read := int64(0)
				for range b.N {
					b.StopTimer()
					c := acpclient.Dial(b, acpclient.Options{URL: acpclient.URL(srv.url, "", ""),
						Subprotocols: []string{acp.Subprotocol, acpclient.TokenEntry("secret")}, Name: "bench", Wait: time.Minute})
					before := r.rt.Store.EventsRead()
					b.StartTimer()
					c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "after_message", "afterMessageId": fmt.Sprintf("ev-%d", h.seq)})
					b.StopTimer()
					read += r.rt.Store.EventsRead() - before
					_ = c.WS.Close()
					b.StartTimer()
				}
				b.ReportMetric(float64(read)/float64(b.N), "events-read/op")
			})
		}
	}
}
