package session_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/testkit"
)

// Two runtimes on one home are two owners: a session lives in one of them
// at a time, the other refuses every request with who holds it, and takes
// the session as soon as the first lets it go.
func TestASessionHasOneOwnerAtATime(t *testing.T) {
	home := t.TempDir()
	first := testkit.Boot(t, actors.Options{Home: home, Command: "first"})
	second := testkit.Boot(t, actors.Options{Home: home, Command: "second"})
	ctx := context.Background()
	create(t, first, "s")
	_, _, err := first.Sessions.Append(ctx, "s", delta(t, "a"))
	testkit.NoError(t, err)

	var held *persistence.LeaseHeldError
	_, err = second.Sessions.State(ctx, "s")
	if !errors.As(err, &held) || held.Holder.Command != "first" {
		t.Fatalf("state from the second owner: %v", err)
	}
	_, _, err = second.Sessions.Append(ctx, "s", delta(t, "b"))
	if !errors.As(err, &held) {
		t.Fatalf("append from the second owner: %v", err)
	}
	_, err = second.Sessions.Prompt(ctx, "s", sessions.PromptRequest{})
	if !errors.As(err, &held) {
		t.Fatalf("prompt from the second owner: %v", err)
	}
	// A refused session does not stay in memory.
	testkit.Eventually(t, 5*time.Second, "the refused session stops", func() bool {
		live, err := second.Sessions.Live(ctx)
		return err == nil && len(live) == 0
	})

	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	testkit.NoError(t, first.Shutdown(sctx))
	st, err := second.Sessions.State(ctx, "s")
	testkit.NoError(t, err)
	testkit.Equal(t, st.LastSeq, int64(2))
	_, last, err := second.Sessions.Append(ctx, "s", delta(t, "b"))
	testkit.NoError(t, err)
	testkit.Equal(t, last, int64(3))
}
