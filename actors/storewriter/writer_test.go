package storewriter_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/storewriter"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

func setup(t *testing.T, opts storewriter.Options) (sys *actor.ActorSystem, w, inbox *actor.PID, store *persistence.Store, replies chan any) {
	t.Helper()
	store, err := persistence.Open(filepath.Join(t.TempDir(), "troupe.db"), persistence.Options{})
	testkit.NoError(t, err)
	sys = actor.NewActorSystem()
	w = sys.Root.Spawn(storewriter.Props(store, opts))
	replies = make(chan any, 100)
	inbox = sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *storewriter.Committed, *storewriter.StatusSet:
			replies <- m
		}
	}))
	t.Cleanup(func() {
		_, _ = sys.Root.RequestFuture(w, &storewriter.Drain{}, 5*time.Second).Result()
		_ = sys.Root.PoisonFuture(w).Wait()
		store.Close()
		sys.Shutdown()
	})
	return sys, w, inbox, store, replies
}

func evs(id string, from, n int) []event.Event {
	out := make([]event.Event, n)
	for i := range out {
		out[i] = event.Event{SessionID: id, Seq: int64(from + i), RecordedAt: time.Now(), Kind: event.RunStarted, Payload: json.RawMessage(`{"run_id":"r"}`)}
	}
	return out
}

func TestFailedBatchFencesTheGeneration(t *testing.T) {
	sys, w, inbox, store, replies := setup(t, storewriter.Options{})
	meta := &persistence.SessionMeta{ID: "s"}
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 1, Meta: meta, Events: evs("s", 1, 3), ReplyTo: inbox})
	c := testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed)
	testkit.NoError(t, c.Err)
	testkit.Equal(t, c.LastSeq, int64(3))

	// Seq 3 again fails the whole batch. The follow-up of the same
	// generation is never committed after the gap: it either shared the
	// failed batch (the committer answers a good batch before the writer
	// hears it is done, so the two may queue together) or was refused as
	// stale while it waited.
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 1, Events: evs("s", 3, 2), ReplyTo: inbox})
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 1, Events: evs("s", 5, 1), ReplyTo: inbox})
	for range 2 {
		if err := testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed).Err; err == nil {
			t.Fatal("an append after the failed one was committed")
		}
	}
	// Whatever the timing, the failed generation is fenced now.
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 1, Events: evs("s", 4, 1), ReplyTo: inbox})
	if err := testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed).Err; !errors.Is(err, storewriter.ErrStaleGeneration) {
		t.Fatalf("append of the failed generation: %v, want ErrStaleGeneration", err)
	}
	last, err := store.LastSeq(context.Background(), "s")
	testkit.NoError(t, err)
	testkit.Equal(t, last, int64(3))

	// A new incarnation continues from the store.
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 2, Events: evs("s", 4, 1), ReplyTo: inbox})
	c = testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed)
	testkit.NoError(t, c.Err)
	testkit.Equal(t, c.LastSeq, int64(4))
}

func TestWindowGroupsAppendsAndDrainFlushes(t *testing.T) {
	sys, w, inbox, store, replies := setup(t, storewriter.Options{Window: time.Hour, MaxBatch: 1000})
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 1, Meta: &persistence.SessionMeta{ID: "s"}, Events: evs("s", 1, 2), ReplyTo: inbox})
	sys.Root.Send(w, &storewriter.Append{SessionID: "s", Gen: 1, Events: evs("s", 3, 2), ReplyTo: inbox})
	// The hour-long window holds them until Drain forces the commit.
	select {
	case m := <-replies:
		t.Fatalf("committed before the window closed: %+v", m)
	case <-time.After(50 * time.Millisecond):
	}
	_, err := sys.Root.RequestFuture(w, &storewriter.Drain{}, 5*time.Second).Result()
	testkit.NoError(t, err)
	for range 2 {
		testkit.NoError(t, testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed).Err)
	}
	last, err := store.LastSeq(context.Background(), "s")
	testkit.NoError(t, err)
	testkit.Equal(t, last, int64(4))
}

func TestClaimsLostLeasesAndHeartbeat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "troupe.db")
	// A lease passes on when its holder stalls past the TTL, and a loaded
	// machine stalls a whole process for hundreds of milliseconds: the TTL
	// is that tolerance, so it is many heartbeats long.
	ttl := 2 * time.Second
	renew := 50 * time.Millisecond
	other, err := persistence.Open(path, persistence.Options{Owner: persistence.Owner{ID: "other", PID: 1, Host: "elsewhere"}, LeaseTTL: ttl})
	testkit.NoError(t, err)
	defer other.Close()
	store, err := persistence.Open(path, persistence.Options{Owner: persistence.ThisProcess("test"), LeaseTTL: ttl})
	testkit.NoError(t, err)
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	w := sys.Root.Spawn(storewriter.Props(store, storewriter.Options{RenewEvery: renew}))
	defer func() {
		_ = sys.Root.PoisonFuture(w).Wait()
		store.Close()
	}()
	replies := make(chan any, 100)
	inbox := sys.Root.Spawn(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *storewriter.Committed, *storewriter.Claimed:
			replies <- m
		}
	}))
	ctx := context.Background()

	// Another host holds "theirs"; "mine" is free.
	_, err = other.Commit(ctx, persistence.Batch{Claims: []string{"theirs"}})
	testkit.NoError(t, err)
	sys.Root.Send(w, &storewriter.Claim{SessionID: "theirs", ReplyTo: inbox})
	sys.Root.Send(w, &storewriter.Claim{SessionID: "mine", ReplyTo: inbox})
	c := testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Claimed)
	if c.SessionID != "theirs" || c.Held == nil || c.Held.ID != "other" {
		t.Fatalf("claim of theirs: %+v", c)
	}
	c = testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Claimed)
	if c.SessionID != "mine" || c.Held != nil || c.Err != nil {
		t.Fatalf("claim of mine: %+v", c)
	}

	// The writer's heartbeat keeps "mine" while nothing else is written:
	// once its heartbeat is more than a TTL past the claim, which alone
	// would have lapsed by then, the other process still cannot take it.
	testkit.Eventually(t, 5*ttl, "the idle lease's heartbeat passes a TTL", func() bool {
		h, err := other.Lease(ctx, "mine")
		testkit.NoError(t, err)
		return h != nil && h.Heartbeat.Sub(h.AcquiredAt) > ttl
	})
	out, err := other.Commit(ctx, persistence.Batch{Claims: []string{"mine"}})
	testkit.NoError(t, err)
	if _, refused := out.Refused["mine"]; !refused {
		t.Fatal("an idle writer's lease lapsed")
	}

	// Writes for a session whose lease this process never had are skipped
	// and answered with ErrLeaseLost, and that generation is fenced.
	sys.Root.Send(w, &storewriter.Append{SessionID: "theirs", Gen: 1, Meta: &persistence.SessionMeta{ID: "theirs"}, Events: evs("theirs", 1, 1), ReplyTo: inbox})
	cm := testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed)
	if !errors.Is(cm.Err, persistence.ErrLeaseLost) {
		t.Fatalf("append without the lease: %+v", cm)
	}
	sys.Root.Send(w, &storewriter.Append{SessionID: "theirs", Gen: 1, Events: evs("theirs", 2, 1), ReplyTo: inbox})
	cm = testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed)
	if !errors.Is(cm.Err, storewriter.ErrStaleGeneration) {
		t.Fatalf("append of the fenced generation: %+v", cm)
	}
	if _, err := store.Session(ctx, "theirs"); !errors.Is(err, persistence.ErrSessionNotFound) {
		t.Fatalf("skipped writes reached the store: %v", err)
	}
}

// Two sessions in one batch, one of them with a seq already taken (as a
// damaged log makes): only that one hears the error and is fenced; the
// other's events commit and are acknowledged, and it goes on.
func TestOneSessionsCollisionFailsOnlyThatSession(t *testing.T) {
	sys, w, inbox, store, replies := setup(t, storewriter.Options{Window: time.Hour, MaxBatch: 1000})
	for _, id := range []string{"bad", "good"} {
		sys.Root.Send(w, &storewriter.Append{SessionID: id, Gen: 1, Meta: &persistence.SessionMeta{ID: id}, Events: evs(id, 1, 3), ReplyTo: inbox})
	}
	_, err := sys.Root.RequestFuture(w, &storewriter.Drain{}, 5*time.Second).Result()
	testkit.NoError(t, err)
	for range 2 {
		testkit.NoError(t, testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed).Err)
	}

	// One window, so one batch: good's events before and after bad's
	// colliding ones.
	sys.Root.Send(w, &storewriter.Append{SessionID: "good", Gen: 1, Events: evs("good", 4, 2), ReplyTo: inbox})
	sys.Root.Send(w, &storewriter.Append{SessionID: "bad", Gen: 1, Events: evs("bad", 3, 2), ReplyTo: inbox})
	sys.Root.Send(w, &storewriter.Append{SessionID: "good", Gen: 1, Events: evs("good", 6, 1), ReplyTo: inbox})
	_, err = sys.Root.RequestFuture(w, &storewriter.Drain{}, 5*time.Second).Result()
	testkit.NoError(t, err)
	got := map[string][]*storewriter.Committed{}
	for range 3 {
		c := testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed)
		got[c.SessionID] = append(got[c.SessionID], c)
	}
	if len(got["bad"]) != 1 || got["bad"][0].Err == nil {
		t.Fatalf("bad's colliding append: %+v, want an error", got["bad"])
	}
	if len(got["good"]) != 2 || got["good"][0].Err != nil || got["good"][1].Err != nil || got["good"][1].LastSeq != 6 {
		t.Fatalf("good's appends: %+v %+v, want both committed", got["good"][0], got["good"][1])
	}
	for id, want := range map[string]int64{"bad": 3, "good": 6} {
		last, err := store.LastSeq(context.Background(), id)
		testkit.NoError(t, err)
		testkit.Equal(t, last, want)
	}

	// bad's generation is fenced; good's is not.
	sys.Root.Send(w, &storewriter.Append{SessionID: "bad", Gen: 1, Events: evs("bad", 4, 1), ReplyTo: inbox})
	if err := testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed).Err; !errors.Is(err, storewriter.ErrStaleGeneration) {
		t.Fatalf("bad's next append: %v, want ErrStaleGeneration", err)
	}
	sys.Root.Send(w, &storewriter.Append{SessionID: "good", Gen: 1, Events: evs("good", 7, 1), ReplyTo: inbox})
	_, err = sys.Root.RequestFuture(w, &storewriter.Drain{}, 5*time.Second).Result()
	testkit.NoError(t, err)
	c := testkit.ChanRead(t, replies, 5*time.Second).(*storewriter.Committed)
	testkit.NoError(t, c.Err)
	testkit.Equal(t, c.LastSeq, int64(7))
}
