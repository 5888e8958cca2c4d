package sessions_test

import (
	"context"
	"testing"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// awaitingInput follows the flags raised and cleared, per session, named
// or not.
func TestAwaitingInputFollowsFlags(t *testing.T) {
	r := newRig(t, llmserver.Script{})
	ctx := context.Background()
	c := r.rt.Sessions
	testkit.NoError(t, c.Create(ctx, "g", event.CreatedPayload{Cwd: r.cwd}))
	got, err := c.AwaitingInput(ctx, []string{r.id, "g"})
	testkit.NoError(t, err)
	testkit.Equal(t, len(got), 0)

	_, err = c.SetAttention(ctx, "g", sessions.AttentionChange{Source: "planner", Reason: "review"})
	testkit.NoError(t, err)
	got, err = c.AwaitingInput(ctx, nil)
	testkit.NoError(t, err)
	testkit.DeepEqual(t, got, map[string]bool{"g": true})
	got, err = c.AwaitingInput(ctx, []string{r.id})
	testkit.NoError(t, err)
	testkit.Equal(t, len(got), 0)

	_, err = c.SetAttention(ctx, "g", sessions.AttentionChange{Source: "planner", Reason: "review", Clear: true})
	testkit.NoError(t, err)
	got, err = c.AwaitingInput(ctx, []string{"g"})
	testkit.NoError(t, err)
	testkit.Equal(t, got["g"], false)
}
