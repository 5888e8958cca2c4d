package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
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
	rt := testkit.Boot(t, actors.Options{
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

func draft(t *testing.T, kind event.Kind, payload any) event.Draft {
	t.Helper()
	d, err := event.NewDraft(kind, payload)
	testkit.NoError(t, err)
	return d
}

// openRun appends an open run r1 that restarts have already interrupted
// (and resumed) resumed times, then stops the session, so that the next
// request recovers it.
func openRun(t *testing.T, rt *actors.Runtime, id string, resumed int) {
	t.Helper()
	ctx := context.Background()
	testkit.NoError(t, rt.Sessions.Create(ctx, id, event.CreatedPayload{Cwd: t.TempDir()}))
	drafts := []event.Draft{draft(t, event.RunStarted, event.RunStartedPayload{RunID: "r1"})}
	for range resumed {
		drafts = append(drafts, draft(t, event.RunInterrupted, event.RunInterruptedPayload{RunID: "r1", Policy: event.CrashResume}))
	}
	_, _, err := rt.Sessions.Append(ctx, id, drafts...)
	testkit.NoError(t, err)
	testkit.NoError(t, rt.Sessions.Kill(ctx, id))
}

func runEnd(t *testing.T, rt *actors.Runtime, id string) *event.RunEndedPayload {
	t.Helper()
	var end *event.RunEndedPayload
	testkit.Eventually(t, 10*time.Second, "the run ended", func() bool {
		_ = rt.Store.Load(context.Background(), id, 1, func(e event.Event) error {
			var p event.RunEndedPayload
			if e.Kind == event.RunEnded && e.Decode(&p) == nil {
				end = &p
			}
			return nil
		})
		return end != nil
	})
	return end
}

// A run is resumed after a restart at most maxResumes (3) times: the next
// interruption ends it with an error saying so, without a model call.
func TestRunIsResumedABoundedNumberOfTimes(t *testing.T) {
	p, err := llmserver.NewProvider(llmserver.Script{Replies: []llmserver.Reply{llmserver.Steps(llmserver.Text("resumed"))}}, llmserver.WithTest(t))
	testkit.NoError(t, err)
	rt := testkit.Boot(t, actors.Options{Engine: testkit.Engine(p, event.ToolStyleNative)})
	ctx := context.Background()

	openRun(t, rt, "twice", 2)
	_, err = rt.Sessions.State(ctx, "twice")
	testkit.NoError(t, err)
	if end := runEnd(t, rt, "twice"); end.StopReason != event.StopEndTurn {
		t.Fatalf("a run resumed twice before ended %+v, want it resumed to its end", end)
	}

	openRun(t, rt, "thrice", 3)
	_, err = rt.Sessions.State(ctx, "thrice")
	testkit.NoError(t, err)
	end := runEnd(t, rt, "thrice")
	if end.StopReason != event.StopError || !strings.Contains(end.Error, "not resumed again") {
		t.Fatalf("a run resumed three times before ended %+v, want an error saying it is not resumed again", end)
	}
}

// A log that interrupts a run it shows ended (a store that read back short
// and was resumed over) fails the session at recovery, with the reason;
// nothing is resumed.
func TestInconsistentLogFailsTheSession(t *testing.T) {
	p, err := llmserver.NewProvider(llmserver.Script{}, llmserver.WithTest(t))
	testkit.NoError(t, err)
	rt := testkit.Boot(t, actors.Options{Engine: testkit.Engine(p, event.ToolStyleNative)})
	ctx := context.Background()
	testkit.NoError(t, rt.Sessions.Create(ctx, "bad", event.CreatedPayload{Cwd: t.TempDir()}))
	_, _, err = rt.Sessions.Append(ctx, "bad",
		draft(t, event.RunStarted, event.RunStartedPayload{RunID: "r1"}),
		draft(t, event.RunEnded, event.RunEndedPayload{RunID: "r1", StopReason: event.StopEndTurn}),
		draft(t, event.RunInterrupted, event.RunInterruptedPayload{RunID: "r1", Policy: event.CrashResume}))
	testkit.NoError(t, err)
	testkit.NoError(t, rt.Sessions.Kill(ctx, "bad"))
	for range 2 { // the failing incarnation, then one that reads the status back
		_, err = rt.Sessions.State(ctx, "bad")
		if !errors.Is(err, session.ErrFailed) || !strings.Contains(err.Error(), "interrupts run r1") {
			t.Fatalf("state of an inconsistent log: %v, want ErrFailed with the reason", err)
		}
		testkit.Eventually(t, 5*time.Second, "the failed session passivated", func() bool {
			live, err := rt.Sessions.Live(ctx)
			return err == nil && len(live) == 0
		})
	}
	meta, err := rt.Store.Session(ctx, "bad")
	testkit.NoError(t, err)
	if meta.Status != persistence.StatusFailed || !strings.Contains(meta.StatusReason, "interrupts run r1") {
		t.Fatalf("stored status %q (%q), want failed with the reason", meta.Status, meta.StatusReason)
	}
}
