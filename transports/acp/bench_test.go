package acp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// BenchmarkWebSocketUpdates: one session streams a reply of one-token
// deltas to one WebSocket client; updates/s is what the client reads,
// from the prompt to its answer (every delta persisted first).
func BenchmarkWebSocketUpdates(b *testing.B) {
	const deltas = 200000
	for range b.N {
		r := newWSRig(b, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Tokens(deltas, "x"))}}, event.ApprovalYolo, nil)
		c := r.dial(b, "bench")
		sid, _ := c.NewSession(r.cwd)
		start := time.Now()
		pid := c.Prompt(sid, "go")
		answer := []byte(fmt.Sprintf(`"id":%d,"result"`, pid))
		chunks := 0
		for {
			_ = c.WS.SetReadDeadline(time.Now().Add(time.Minute))
			_, msg, err := c.WS.ReadMessage()
			testkit.NoError(b, err)
			if bytes.Contains(msg, []byte(`"agent_message_chunk"`)) {
				chunks++
			}
			if bytes.Contains(msg, answer) {
				break
			}
		}
		el := time.Since(start)
		testkit.Equal(b, chunks, deltas)
		b.ReportMetric(float64(chunks)/el.Seconds(), "updates/s")
	}
}

// BenchmarkWebSocketFanout: one session streams a reply of one-token
// deltas to 10 WebSocket clients attached to it (one sent the prompt);
// deliveries/s is the chunks all of them read, from the prompt until the
// last one has the turn's end.
func BenchmarkWebSocketFanout(b *testing.B) {
	const deltas, clients = 100000, 10
	for range b.N {
		r := newWSRig(b, llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Tokens(deltas, "x"))}}, event.ApprovalYolo, nil)
		cs := []*acpclient.Client{r.dial(b, "sender")}
		sid, _ := cs[0].NewSession(r.cwd)
		for i := 1; i < clients; i++ {
			c := r.dial(b, fmt.Sprint("viewer-", i))
			c.Attach(map[string]any{"sessionId": sid, "historyPolicy": "none"})
			cs = append(cs, c)
		}
		start := time.Now()
		pid := cs[0].Prompt(sid, "go")
		counts := make([]int, clients)
		errs := make([]error, clients)
		var wg sync.WaitGroup
		for i, c := range cs {
			end := []byte(`"turn_complete"`)
			if i == 0 {
				end = []byte(fmt.Sprintf(`"id":%d,"result"`, pid))
			}
			wg.Go(func() {
				for {
					_ = c.WS.SetReadDeadline(time.Now().Add(time.Minute))
					_, msg, err := c.WS.ReadMessage()
					if err != nil {
						errs[i] = err
						return
					}
					if bytes.Contains(msg, []byte(`"agent_message_chunk"`)) {
						counts[i]++
						continue
					}
					if bytes.Contains(msg, end) {
						return
					}
				}
			})
		}
		wg.Wait()
		el := time.Since(start)
		total := 0
		for i := range cs {
			testkit.NoError(b, errs[i])
			testkit.Equal(b, counts[i], deltas)
			total += counts[i]
		}
		b.ReportMetric(float64(total)/el.Seconds(), "deliveries/s")
	}
}

// BenchmarkAttachReplay: a client attaches (historyPolicy full) to a
// session of 100,000 stored deltas; events/s is the history folded and
// sent (coalesced) until the attach answers.
func BenchmarkAttachReplay(b *testing.B) {
	const deltas = 100000
	r := newWSRig(b, llmserver.Script{}, event.ApprovalYolo, nil)
	ctx := context.Background()
	c := r.dial(b, "writer")
	sid, _ := c.NewSession(r.cwd)
	appendRun(b, r, sid, deltas)
	for range b.N {
		v := r.dial(b, "viewer")
		start := time.Now()
		id := v.Call("session/attach", map[string]any{"sessionId": sid, "historyPolicy": "full"})
		answer := []byte(fmt.Sprintf(`"id":%d,"result"`, id))
		var first time.Duration
		var text int
		for {
			_ = v.WS.SetReadDeadline(time.Now().Add(time.Minute))
			_, msg, err := v.WS.ReadMessage()
			testkit.NoError(b, err)
			if first == 0 {
				first = time.Since(start)
			}
			if bytes.Contains(msg, []byte(`"agent_message_chunk"`)) {
				var f acpclient.Frame
				testkit.NoError(b, json.Unmarshal(msg, &f))
				text += len(f.Update(b).Update.Content.Text)
			}
			if bytes.Contains(msg, answer) {
				break
			}
		}
		el := time.Since(start)
		testkit.Equal(b, text, deltas)
		b.ReportMetric(float64(deltas)/el.Seconds(), "events/s")
		b.ReportMetric(float64(first.Microseconds())/1000, "ms-to-first")
		_ = v.WS.Close()
	}
	_ = ctx
}

// appendRun stores one run of n one-letter deltas in session sid.
func appendRun(b testing.TB, r *wsRig, sid string, n int) {
	ctx := context.Background()
	draft := func(kind event.Kind, p any) event.Draft {
		d, err := event.NewDraft(kind, p)
		testkit.NoError(b, err)
		return d
	}
	run := "msg-run"
	ds := []event.Draft{
		draft(event.PromptQueued, event.PromptQueuedPayload{MessageID: run, Content: []event.Block{{Type: "text", Text: "go"}}, Delivery: event.DeliveryPrompt}),
		draft(event.RunStarted, event.RunStartedPayload{RunID: run}),
		draft(event.StepStarted, event.StepStartedPayload{RunID: run, Step: 1, MessageID: "msg-a"}),
	}
	for i := range n {
		ds = append(ds, draft(event.MessageDelta, event.MessageDeltaPayload{RunID: run, MessageID: "msg-a", Channel: event.ChannelText, Text: "z"}))
		if len(ds) == 4096 || i == n-1 {
			_, _, err := r.rt.Sessions.Append(ctx, sid, ds...)
			testkit.NoError(b, err)
			ds = ds[:0]
		}
	}
	ds = append(ds,
		draft(event.MessageCompleted, event.MessageCompletedPayload{RunID: run, MessageID: "msg-a", Text: strings.Repeat("z", n)}),
		draft(event.StepEnded, event.StepEndedPayload{RunID: run, Step: 1, MessageID: "msg-a", FinishReason: "stop"}),
		draft(event.RunEnded, event.RunEndedPayload{RunID: run, StopReason: "end_turn"}))
	_, _, err := r.rt.Sessions.Append(ctx, sid, ds...)
	testkit.NoError(b, err)
}
