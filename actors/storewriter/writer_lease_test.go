package storewriter_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/storewriter"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/testkit"
)

// A session stopped and started again within one batch: the stopped
// incarnation's release, then the next one's claim. The batch runs claims
// before releases, so the release must not survive the claim, or the next
// incarnation's writes find their lease gone.
func TestClaimAfterReleaseInOneBatchKeepsTheLease(t *testing.T) {
	store, err := persistence.Open(filepath.Join(t.TempDir(), "troupe.db"), persistence.Options{Owner: persistence.ThisProcess("test")})
	testkit.NoError(t, err)
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	w := sys.Root.Spawn(storewriter.Props(store, storewriter.Options{Window: time.Hour, MaxBatch: 1000}))
	defer func() {
		_ = sys.Root.PoisonFuture(w).Wait()
		store.Close()
	}()
	replies := make(chan any, 10)
	inbox := sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *storewriter.Committed, *storewriter.Claimed:
			replies <- m
		}
	}))
	drain := func() {
		_, err := sys.Root.RequestFuture(w, &storewriter.Drain{}, 5*time.Second).Result()
		testkit.NoError(t, err)
	}
	sys.Root.Send(w, &storewriter.Claim{SessionID: "s", ReplyTo: inbox})
	drain()
	testkit.ChanRead(t, replies, 5*time.Second)

	sys.Root.Send(w, &storewriter.Release{SessionID: "s"})
	sys.Root.Send(w, &storewriter.Claim{SessionID: "s", ReplyTo: inbox})
	drain()
	testkit.ChanRead(t, replies, 5*time.Second)
	h, err := store.Lease(context.Background(), "s")
	testkit.NoError(t, err)
	if h == nil {
		t.Fatal("the next incarnation's claim was undone by the stopped one's release")
	}
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 2, Meta: &persistence.SessionMeta{ID: "s"}, Events: evs("s", 1, 1), ReplyTo: inbox})
	drain()
	testkit.NoError(t, testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed).Err)
}

// A session stopped and started again within one batch: the stopped
// incarnation's cold status, then the next one's first append, whose row
// says live. The batch writes statuses after rows, so the cold status
// must not survive the newer row, or the session is left cold while it
// is hosted and written, and a list, which trusts a cold row's head,
// shows it stale.
func TestAppendAfterColdStatusInOneBatchKeepsTheSessionLive(t *testing.T) {
	sys, w, inbox, store, replies := setup(t, storewriter.Options{Window: time.Hour, MaxBatch: 1000})
	drain := func() {
		_, err := sys.Root.RequestFuture(w, &storewriter.Drain{}, 5*time.Second).Result()
		testkit.NoError(t, err)
	}
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 1, Meta: &persistence.SessionMeta{ID: "s"}, Events: evs("s", 1, 1), ReplyTo: inbox})
	drain()
	testkit.NoError(t, testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed).Err)

	sys.Root.Send(w, &storewriter.SetStatus{Change: persistence.StatusChange{SessionID: "s", Status: persistence.StatusCold}, ReplyTo: inbox})
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 2, Meta: &persistence.SessionMeta{ID: "s"}, Events: evs("s", 2, 1), ReplyTo: inbox})
	drain()
	testkit.ChanRead(t, replies, 5*time.Second)
	testkit.ChanRead(t, replies, 5*time.Second)
	m, err := store.Session(context.Background(), "s")
	testkit.NoError(t, err)
	testkit.Equal(t, m.Status, persistence.StatusLive)
}

// The writer tells a claim's epoch, and the store refuses an append made
// under an older one: a session incarnation that claimed before the
// lease last changed hands cannot write after it.
func TestAppendUnderAnOlderEpochIsFenced(t *testing.T) {
	store, err := persistence.Open(filepath.Join(t.TempDir(), "troupe.db"), persistence.Options{Owner: persistence.ThisProcess("test")})
	testkit.NoError(t, err)
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	w := sys.Root.Spawn(storewriter.Props(store, storewriter.Options{}))
	defer func() {
		_ = sys.Root.PoisonFuture(w).Wait()
		store.Close()
	}()
	replies := make(chan any, 10)
	inbox := sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *storewriter.Committed, *storewriter.Claimed:
			replies <- m
		}
	}))
	claim := func() int64 {
		sys.Root.Send(w, &storewriter.Claim{SessionID: "s", ReplyTo: inbox})
		c := testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Claimed)
		testkit.NoError(t, c.Err)
		return c.Epoch
	}
	first := claim()
	testkit.Equal(t, first, int64(1))
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 1, Epoch: first, Meta: &persistence.SessionMeta{ID: "s"}, Events: evs("s", 1, 1), ReplyTo: inbox})
	testkit.NoError(t, testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed).Err)

	sys.Root.Send(w, &storewriter.Release{SessionID: "s"})
	second := claim()
	testkit.Equal(t, second, first+1)
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 1, Epoch: first, Events: evs("s", 2, 1), ReplyTo: inbox})
	var fenced *persistence.FencedError
	if cm := testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed); !errors.As(cm.Err, &fenced) || fenced.Current != second {
		t.Fatalf("append under the epoch before: %+v", cm)
	}
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 2, Epoch: second, Events: evs("s", 2, 1), ReplyTo: inbox})
	testkit.NoError(t, testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed).Err)
	last, err := store.LastSeq(context.Background(), "s")
	testkit.NoError(t, err)
	testkit.Equal(t, last, int64(2))
}
