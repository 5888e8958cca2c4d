package session_test

import (
	"context"
	"testing"

	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A model change during a run reaches the run from its next step: the
// running turn resolves the session's settings again.
func TestModelChangeReachesTheRunningTurn(t *testing.T) {
	r, g := newGatedRig(t, event.ToolStyleNative, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("c1", "ls", `{}`)),
		llmserver.Steps(llmserver.Text("done")),
	}}, func(e *session.Engine) {
		inner := e.Resolve
		e.Resolve = func(ctx context.Context, st session.State) (run.Model, error) {
			m, err := inner(ctx, st)
			if st.Settings.Model != nil {
				m.ID = *st.Settings.Model
			}
			return m, err
		}
	})
	first := g.hold(0)
	run := testkit.Prompt(t, r.rt, r.id, "look")
	<-first.entered
	r.settings(t, event.Settings{Model: ptr("bigger")})
	close(first.release)
	testkit.Equal(t, testkit.WaitRunEnded(t, r.c, run, waitLong).StopReason, event.StopEndTurn)
	reqs := r.llm.Requests()
	testkit.Equal(t, len(reqs), 2)
	testkit.Equal(t, reqs[0].Model, "scripted")
	testkit.Equal(t, reqs[1].Model, "bigger")
}
