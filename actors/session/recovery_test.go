package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/session"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/boot"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A session that crashes mid-run (its actor panics) comes back from the
// log: the run resumes where it stood and the queued prompts run after it,
// in order.
func TestCrashMidRunKeepsQueueAndResumes(t *testing.T) {
	var fault testkit.Switch
	p, err := llmserver.NewProvider(llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("c1", "bash", `{"command":"sleep 0.2"}`)),
		llmserver.Steps(llmserver.Text("first done")),
		llmserver.Steps(llmserver.Text("second done")),
		llmserver.Steps(llmserver.Text("third done")),
	}}, llmserver.WithTest(t))
	testkit.NoError(t, err)
	rt := testkit.Boot(t, boot.Options{
		Engine:   testkit.Engine(p, event.ToolStyleNative),
		Sessions: sessions.Config{Backoff: time.Millisecond},
		SessionMiddleware: []actor.ReceiverMiddleware{testkit.PanicWhen(func(m any) bool {
			_, ok := m.(*session.GetState)
			return ok && fault.Armed()
		})},
	})
	ctx := context.Background()
	testkit.NoError(t, rt.Sessions.Create(ctx, "r", event.CreatedPayload{Cwd: t.TempDir()}))
	c := testkit.NewCollector(t, rt.System)
	_, err = rt.Sessions.Subscribe(ctx, "r", 1, false, c.PID())
	testkit.NoError(t, err)

	first := testkit.Prompt(t, rt, "r", "one")
	second := testkit.Prompt(t, rt, "r", "two")
	third := testkit.Prompt(t, rt, "r", "three")
	c.WaitKind(t, event.ToolStarted, 10*time.Second)
	fault.Arm()
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, _ = rt.Sessions.State(short, "r") // the session panics and restarts
	cancel()
	fault.Disarm()

	// The subscription died with the old incarnation; read the log.
	var ends []string
	defer func() {
		if t.Failed() {
			_ = rt.Store.Load(ctx, "r", 1, func(e event.Event) error {
				if e.Kind != event.MessageDelta {
					t.Logf("%d %s %s", e.Seq, e.Kind, e.Payload)
				}
				return nil
			})
		}
	}()
	testkit.Eventually(t, 20*time.Second, "all three runs ended", func() bool {
		ends = ends[:0]
		_ = rt.Store.Load(ctx, "r", 1, func(e event.Event) error {
			var p event.RunEndedPayload
			if e.Kind == event.RunEnded && e.Decode(&p) == nil {
				ends = append(ends, p.RunID+":"+p.StopReason)
			}
			return nil
		})
		return len(ends) == 3
	})
	if t.Failed() {
		return
	}
	testkit.DeepEqual(t, ends, []string{first + ":end_turn", second + ":end_turn", third + ":end_turn"})
	var interrupted int
	_ = rt.Store.Load(ctx, "r", 1, func(e event.Event) error {
		if e.Kind == event.RunInterrupted {
			interrupted++
		}
		return nil
	})
	testkit.Equal(t, interrupted, 1)
}
