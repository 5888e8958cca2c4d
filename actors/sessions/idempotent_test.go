package sessions_test

import (
	"context"
	"testing"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A prompt sent again under the message id it was queued with (a retry,
// the cluster's after a member's loss) is answered where it is, and queued
// once: running, waiting, or after the session was stopped and started
// again from its log.
func TestFacadePromptIdempotentByMessageID(t *testing.T) {
	r := newRig(t, llmserver.Script{Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.ToolCall("b1", "bash", `{"command":"while [ ! -e never ]; do sleep 0.02; done"}`)),
	}})
	ctx := context.Background()
	c := r.rt.Sessions

	first, err := c.Prompt(ctx, r.id, sessions.PromptRequest{MessageID: "m-1", Content: text("work")})
	testkit.NoError(t, err)
	r.c.WaitKind(t, event.ToolStarted, wait)
	again, err := c.Prompt(ctx, r.id, sessions.PromptRequest{MessageID: "m-1", Content: text("work")})
	testkit.NoError(t, err)
	testkit.Equal(t, again, sessions.PromptResult{MessageID: "m-1", Position: 0, Depth: 0})

	second, err := c.Prompt(ctx, r.id, sessions.PromptRequest{MessageID: "m-2", Content: text("later")})
	testkit.NoError(t, err)
	testkit.Equal(t, second.Position, 1)
	again, err = c.Prompt(ctx, r.id, sessions.PromptRequest{MessageID: "m-2", Content: text("later")})
	testkit.NoError(t, err)
	testkit.Equal(t, again, second)

	_, err = c.QueueCancel(ctx, r.id, "m-2")
	testkit.NoError(t, err)
	_, err = c.Cancel(ctx, r.id, "test")
	testkit.NoError(t, err)
	testkit.WaitRunEnded(t, r.c, first.MessageID, wait)
	testkit.NoError(t, c.Kill(ctx, r.id))

	// The session starts again from its log: the ids it queued are known.
	for _, id := range []string{"m-1", "m-2"} {
		res, err := c.Prompt(ctx, r.id, sessions.PromptRequest{MessageID: id, Content: text("again")})
		testkit.NoError(t, err)
		testkit.Equal(t, res, sessions.PromptResult{MessageID: id})
	}
	queued := map[string]int{}
	testkit.NoError(t, c.LoadKind(ctx, r.id, event.PromptQueued, func(e event.Event) error {
		var p event.PromptQueuedPayload
		if err := e.Decode(&p); err != nil {
			return err
		}
		queued[p.MessageID]++
		return nil
	}))
	testkit.Equal(t, len(queued), 2)
	testkit.Equal(t, queued["m-1"], 1)
	testkit.Equal(t, queued["m-2"], 1)
}
