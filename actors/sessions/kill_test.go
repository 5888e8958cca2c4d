package sessions_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// Kill stops a live session (cold, its log kept); Delete removes it, but
// not while a fork depends on it.
func TestKillAndDelete(t *testing.T) {
	r := newRig(t, llmserver.Script{})
	ctx := context.Background()
	c := r.rt.Sessions
	live, err := c.Live(ctx)
	testkit.NoError(t, err)
	testkit.Equal(t, slices.Contains(live, r.id), true)

	testkit.NoError(t, c.Kill(ctx, r.id))
	live, err = c.Live(ctx)
	testkit.NoError(t, err)
	testkit.Equal(t, slices.Contains(live, r.id), false)
	testkit.Eventually(t, wait, "the subscriber closed and the session cold", func() bool {
		m, err := c.Meta(ctx, r.id)
		return r.c.Closed() != "" && err == nil && m.Status == "cold"
	})
	testkit.NoError(t, c.Kill(ctx, r.id)) // not live: nothing to do

	fork, err := c.Fork(ctx, sessions.ForkRequest{Parent: r.id, Seq: 1, Session: event.CreatedPayload{Cwd: r.cwd}})
	testkit.NoError(t, err)
	testkit.Equal(t, errors.Is(c.Delete(ctx, r.id), sessions.ErrHasForks), true)
	testkit.NoError(t, c.Delete(ctx, fork))
	testkit.NoError(t, c.Delete(ctx, r.id))
	_, err = c.Meta(ctx, r.id)
	testkit.Equal(t, errors.Is(err, sessions.ErrNotFound), true)
	testkit.Equal(t, errors.Is(c.Delete(ctx, r.id), sessions.ErrNotFound), true)
}

// A Kill sent without a sender (a cluster grain handing its session over
// tells the registry, asking nothing) stops the session like an asked
// one, and the registry, which has no one to answer, keeps serving.
func TestKillToldWithoutASender(t *testing.T) {
	r := newRig(t, llmserver.Script{})
	ctx := context.Background()
	c := r.rt.Sessions
	r.rt.System.Root.Send(r.rt.Registry(), &sessions.Kill{ID: r.id})
	testkit.Eventually(t, wait, "the told session stopped and cold", func() bool {
		live, err := c.Live(ctx)
		m, merr := c.Meta(ctx, r.id)
		return err == nil && merr == nil && !slices.Contains(live, r.id) && m.Status == "cold"
	})
	// The registry still serves: the session wakes on a request.
	_, err := c.State(ctx, r.id)
	testkit.NoError(t, err)
	live, err := c.Live(ctx)
	testkit.NoError(t, err)
	testkit.Equal(t, slices.Contains(live, r.id), true)
}
