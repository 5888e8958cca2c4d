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
// (decode the canonical event, build the line), without the engine, the
// store or the pipe.
func BenchmarkProjectDelta(b *testing.B) {
	f := newFold("s", fixedModels{})
	bytesOut := 0
	f.emit = func(line []byte) { bytesOut += len(line) }
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

func mustEvent(tb testing.TB, seq int64, kind event.Kind, p any) event.Event {
	raw, err := json.Marshal(p)
	if err != nil {
		tb.Fatal(err)
	}
	return event.Event{SessionID: "s", Seq: seq, Kind: kind, Payload: raw, RecordedAt: time.Now()}
}
