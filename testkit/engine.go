package testkit

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/tools"
)

// Engine is a session engine whose runs all use provider p (for example a
// testkit/llmserver Provider), with the built-in tools, yolo approvals,
// fast retries and predictable ids (msg-1, msg-2, ...). Adjust the fields
// before booting to test other modes.
func Engine(p llm.Provider, toolStyle string) *sessions.Engine {
	var n atomic.Int64
	return &sessions.Engine{
		Resolve: func(context.Context, sessions.State) (sessions.RunModel, error) {
			return sessions.RunModel{Provider: p, ID: "scripted", ToolStyle: toolStyle}, nil
		},
		Tools:       func(sessions.State) []tools.Tool { return tools.Builtins() },
		DefaultMode: event.ApprovalYolo,
		Retry:       sessions.Retry{Enabled: true, BaseDelay: time.Millisecond},
		NewID:       func(prefix string) string { return fmt.Sprintf("%s-%d", prefix, n.Add(1)) },
	}
}

// Prompt queues text in session id and returns its message id once the
// prompt is durable.
func Prompt(t testing.TB, rt *actors.Runtime, id, text string) string {
	t.Helper()
	res, err := rt.Sessions.Prompt(context.Background(), id, sessions.PromptRequest{Content: []event.Block{{Type: "text", Text: text}}})
	NoError(t, err)
	return res.MessageID
}

// WaitRunEnded waits until c holds run.ended for runID and returns its payload.
func WaitRunEnded(t testing.TB, c *Collector, runID string, timeout time.Duration) event.RunEndedPayload {
	t.Helper()
	var out event.RunEndedPayload
	c.WaitFor(t, timeout, func(evs []event.Event) bool {
		for _, e := range evs {
			if e.Kind != event.RunEnded {
				continue
			}
			var p event.RunEndedPayload
			if e.Decode(&p) == nil && p.RunID == runID {
				out = p
				return true
			}
		}
		return false
	})
	return out
}
