package projection_test

import (
	"testing"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/projection"
	"github.com/troupehq/troupe/transports/projection/projectiontest"
)

// BenchmarkViewDelta is the kit's cost per message.delta: folded (decoded
// into the view's buffer, appended to its block), and skipped as on
// replay (Deltas off: not decoded).
func BenchmarkViewDelta(b *testing.B) {
	l := projectiontest.NewLog(b, "s").Prompt("r", "go").
		Add(event.StepStarted, event.StepStartedPayload{RunID: "r", Step: 1, MessageID: "m"}).
		Deltas("r", "m", event.ChannelText, "tok ")
	for _, fold := range []bool{true, false} {
		name := "folded"
		if !fold {
			name = "skipped"
		}
		b.Run(name, func(b *testing.B) {
			v := &projection.View{SessionID: "s", Deltas: fold}
			for _, e := range l.Events[:len(l.Events)-1] {
				v.Apply(e)
			}
			delta := l.Events[len(l.Events)-1]
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				delta.Seq = int64(4 + i)
				v.Apply(delta)
				if fold && i%4096 == 4095 {
					// Keep the block from growing without bound.
					bl := v.Run().Step.Blocks[0]
					bl.Text = bl.Text[:0]
				}
			}
		})
	}
}
