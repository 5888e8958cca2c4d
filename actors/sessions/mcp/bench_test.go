package mcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/troupehq/troupe/runtime/tools"
	"github.com/troupehq/troupe/testkit"
)

// BenchmarkMCPCall is one tool call through the actor's tool (asking the
// actor for its connection, the call, the result's conversion) to an
// in-memory server, without and with a progress callback registered.
func BenchmarkMCPCall(b *testing.B) {
	for _, withProgress := range []bool{false, true} {
		name := "plain"
		var progress func(string)
		if withProgress {
			name, progress = "progress-token", func(string) {}
		}
		b.Run(name, func(b *testing.B) {
			m := newMemServer(b)
			_, _, set, _ := memActor(b, m)
			var echo tools.Tool
			testkit.Eventually(b, 5*time.Second, "tools offered", func() bool {
				echo = toolNamed(set.Tools(), "mem__echo")
				return echo != nil
			})
			call := tools.Call{Args: []byte(`{"text":"x"}`)}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				res, err := echo.Run(ctx, call, progress)
				if err != nil || res.Output != "echo:x" {
					b.Fatalf("echo: %+v %v", res, err)
				}
			}
		})
	}
}
