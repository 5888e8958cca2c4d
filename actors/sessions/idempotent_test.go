package sessions_test

import (
	"context"
	"testing"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A prompt sent again under the message id it was queued with while it
// waits or runs (a retry, the cluster's after a member's loss) is answered
// where it is, and queued once, also after the session stopped and
// started again from its log; an ended prompt's id may name a new one.
func TestFacadePromptIdempotentByMessageID(t *testing.T) {
	// Every run blocks in a tool call, so a prompt queued behind one waits.
	block := llmserver.Steps(llmserver.ToolCall("b1", "bash", `{"command":"while [ ! -e never ]; do sleep 0.02; done"}`))
	r := newRig(t, llmserver.Script{Replies: []llmserver.Reply{block}, Default: &block})
	ctx := context.Background()
	c := r.rt.Sessions

	_, err := c.Prompt(ctx, r.id, sessions.PromptRequest{MessageID: "m-1", Content: text("work")})
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

	// An ended prompt's id may name a new message.
	_, err = c.QueueCancel(ctx, r.id, "m-2")
	testkit.NoError(t, err)
	next, err := c.Prompt(ctx, r.id, sessions.PromptRequest{MessageID: "m-2", Content: text("a new one")})
	testkit.NoError(t, err)
	testkit.Equal(t, next.Position, 1)

	// The session stops and starts again from its log: the prompt still
	// waiting (or, once the interrupted run is settled, running) is known
	// by its id.
	testkit.NoError(t, c.Kill(ctx, r.id))
	res, err := c.Prompt(ctx, r.id, sessions.PromptRequest{MessageID: "m-2", Content: text("a new one")})
	testkit.NoError(t, err)
	testkit.Equal(t, res.MessageID, "m-2")
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
	testkit.Equal(t, queued["m-2"], 2) // the cancelled one and the new one
}
