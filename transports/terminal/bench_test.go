package terminal

import (
	"encoding/json"
	"io"
	"strconv"
	"testing"
)

// BenchmarkRenderChunks: a streamed reply's agent_message_chunk updates
// (one delta each, as the daemon sends them live) rendered on a
// terminal with colour, per update.
func BenchmarkRenderChunks(b *testing.B) {
	frames := make([]json.RawMessage, 1000)
	for i := range frames {
		frames[i] = json.RawMessage(`{"sessionId":"s-agravycircuanc2yimikd4y","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"token` +
			strconv.Itoa(i) + ` "},"messageId":"msg-c88897121"},"_meta":{"hydra-acp":{"messageId":"ev-` + strconv.Itoa(i+10) + `","recordedAt":1795478800614}}}`)
	}
	r := NewRenderer(io.Discard, Options{Colour: true, Live: true})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Update(frames[i%len(frames)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
}
