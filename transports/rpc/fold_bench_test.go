package rpc

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

type fixedModels struct{}

func (fixedModels) current(event.Settings) (string, string)    { return "openai", "tiny" }
func (fixedModels) price(string, string, event.Usage) costJSON { return costJSON{} }

// BenchmarkProjectDelta is the connection's own cost per forwarded delta
// with skeleton partials (decode the canonical event, build the line, copy
// it as into the writer's queue), without the engine, the store or the
// pipe. Lines are of constant size,
// so the cost per delta does not depend on b.N.
func BenchmarkProjectDelta(b *testing.B) {
	f := newFold("s", fixedModels{})
	f.partials = PartialsSkeleton
	bytesOut := 0
	f.emit = queueCopy(&bytesOut)
	now := time.Now()
	f.Apply(mustEvent(b, 1, event.RunStarted, event.RunStartedPayload{RunID: "r"}))
	f.Apply(mustEvent(b, 2, event.StepStarted, event.StepStartedPayload{RunID: "r", Step: 1, MessageID: "m"}))
	delta := mustEvent(b, 3, event.MessageDelta, event.MessageDeltaPayload{RunID: "r", MessageID: "m", Channel: event.ChannelText, Text: "tok "})
	delta.RecordedAt = now
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		delta.Seq = int64(3 + i)
		f.Apply(delta)
	}
	b.ReportMetric(float64(bytesOut)/float64(b.N), "bytes/delta")
}

// BenchmarkProjectReply is the connection's own cost of one reply of
// 20,000 four-byte deltas, every delta shown (no stdout to fall behind):
// full partials as built (the growing message kept encoded), skeleton
// partials, and, for scale, full partials re-marshalled whole per delta
// as a naive projection would.
func BenchmarkProjectReply(b *testing.B) {
	const n = 20_000
	delta := mustEvent(b, 3, event.MessageDelta, event.MessageDeltaPayload{RunID: "r", MessageID: "m", Channel: event.ChannelText, Text: "tok "})
	for _, mode := range []Partials{PartialsFull, PartialsSkeleton} {
		b.Run(mode.String(), func(b *testing.B) {
			bytesOut := 0
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				f := newFold("s", fixedModels{})
				f.partials = mode
				f.emit = queueCopy(&bytesOut)
				f.Apply(mustEvent(b, 1, event.RunStarted, event.RunStartedPayload{RunID: "r"}))
				f.Apply(mustEvent(b, 2, event.StepStarted, event.StepStartedPayload{RunID: "r", Step: 1, MessageID: "m"}))
				for j := 0; j < n; j++ {
					delta.Seq = int64(3 + j)
					f.Apply(delta)
				}
			}
			reportReply(b, n, bytesOut)
		})
	}
	b.Run("full-remarshalled", func(b *testing.B) {
		var p event.MessageDeltaPayload
		bytesOut := 0
		for i := 0; i < b.N; i++ {
			m := &assistantMessage{Role: "assistant", API: api, Provider: "openai", Model: "tiny", StopReason: "stop", Content: []any{}}
			var text []byte
			for j := 0; j < n; j++ {
				if err := json.Unmarshal(delta.Payload, &p); err != nil {
					b.Fatal(err)
				}
				text = append(text, p.Text...)
				m.Content = []any{textBlock{Type: "text", Text: string(text)}}
				ev := map[string]any{"type": "text_delta", "contentIndex": 0, "delta": p.Text, "partial": m}
				line, err := marshal(updateEvent{Type: "message_update", Message: m, AssistantMessageEvent: ev})
				if err != nil {
					b.Fatal(err)
				}
				bytesOut += len(line)
			}
		}
		reportReply(b, n, bytesOut)
	})
}

// queueCopy is an emit that copies each line, as the connection's does
// into the writer's queue, and counts the bytes.
func queueCopy(bytesOut *int) func([]byte) {
	var queue []byte
	return func(line []byte) {
		queue = append(queue[:0], line...)
		*bytesOut += len(line)
	}
}

func reportReply(b *testing.B, n, bytesOut int) {
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "deltas/s")
	b.ReportMetric(float64(bytesOut)/float64(b.N)/1e6, "MB/reply")
}

func mustEvent(tb testing.TB, seq int64, kind event.Kind, p any) event.Event {
	raw, err := json.Marshal(p)
	if err != nil {
		tb.Fatal(err)
	}
	return event.Event{SessionID: "s", Seq: seq, Kind: kind, Payload: raw, RecordedAt: time.Now()}
}
