package session_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

func delta(t testing.TB, text string) event.Draft {
	d, err := event.NewDraft(event.MessageDelta, event.MessageDeltaPayload{RunID: "r", MessageID: "m", Channel: event.ChannelText, Text: text})
	testkit.NoError(t, err)
	return d
}

func create(t testing.TB, rt *actors.Runtime, id string) {
	t.Helper()
	testkit.NoError(t, rt.Sessions.Create(context.Background(), id, event.CreatedPayload{Cwd: "/w", Title: "t"}))
}

func checkSeqs(t testing.TB, evs []event.Event, from, to int64) {
	t.Helper()
	if int64(len(evs)) != to-from+1 {
		t.Fatalf("got %d events, want %d (%d..%d)", len(evs), to-from+1, from, to)
	}
	for i, e := range evs {
		if e.Seq != from+int64(i) {
			t.Fatalf("event %d has seq %d, want %d", i, e.Seq, from+int64(i))
		}
	}
}

func TestCreateAppendSubscribe(t *testing.T) {
	rt := testkit.Boot(t, actors.Options{})
	ctx := context.Background()
	create(t, rt, "s1")
	first, last, err := rt.Sessions.Append(ctx, "s1", delta(t, "a"), delta(t, "b"))
	testkit.NoError(t, err)
	testkit.Equal(t, first, int64(2))
	testkit.Equal(t, last, int64(3))

	c := testkit.NewCollector(t, rt.System)
	sub, err := rt.Sessions.Subscribe(ctx, "s1", 1, false, c.PID())
	testkit.NoError(t, err)
	testkit.Equal(t, sub.ReplayTo, int64(3))
	_, _, err = rt.Sessions.Append(ctx, "s1", delta(t, "c"))
	testkit.NoError(t, err)
	evs := c.WaitSeq(t, 4, 5*time.Second)
	checkSeqs(t, evs, 1, 4)
	testkit.Equal(t, evs[0].Kind, event.SessionCreated)

	rt.Sessions.Unsubscribe("s1", sub.Subscription)
	testkit.Eventually(t, 5*time.Second, "closed", func() bool { return c.Closed() == "unsubscribed" })

	if err := rt.Sessions.Create(ctx, "s1", event.CreatedPayload{}); !errors.Is(err, session.ErrExists) {
		t.Fatalf("second create: %v", err)
	}
	if _, _, err := rt.Sessions.Append(ctx, "nope", delta(t, "x")); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("append to unknown session: %v", err)
	}
	bad := event.Draft{Kind: "bogus", Payload: []byte(`{}`)}
	if _, _, err := rt.Sessions.Append(ctx, "s1", bad); err == nil {
		t.Fatal("unknown kind accepted")
	}
	st, err := rt.Sessions.State(ctx, "s1")
	testkit.NoError(t, err)
	testkit.Equal(t, st.LastSeq, int64(4))
}

// Many writers, subscribers attaching at random moments and seqs: every
// subscriber sees exactly its range, in order, once.
func TestConcurrentAppendsAndSubscribers(t *testing.T) {
	rt := testkit.Boot(t, actors.Options{})
	ctx := context.Background()
	create(t, rt, "hot")
	const writers, perWriter = 8, 250
	total := int64(1 + writers*perWriter)

	type attached struct {
		c    *testkit.Collector
		from int64
	}
	var (
		mu   sync.Mutex
		subs []attached
		wg   sync.WaitGroup
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; {
				n := min(1+rand.IntN(5), perWriter-i)
				drafts := make([]event.Draft, n)
				for k := range drafts {
					drafts[k] = delta(t, fmt.Sprintf("w%d-%d", w, i+k))
				}
				if _, _, err := rt.Sessions.Append(ctx, "hot", drafts...); err != nil {
					t.Errorf("append: %v", err)
					return
				}
				i += n
			}
		}()
	}
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
			st, err := rt.Sessions.State(ctx, "hot")
			if err != nil {
				t.Errorf("state: %v", err)
				return
			}
			from := int64(1)
			if rand.IntN(2) == 0 {
				from = 1 + rand.Int64N(st.LastSeq)
			}
			c := testkit.NewCollector(t, rt.System)
			if _, err := rt.Sessions.Subscribe(ctx, "hot", from, false, c.PID()); err != nil {
				t.Errorf("subscribe: %v", err)
				return
			}
			mu.Lock()
			subs = append(subs, attached{c, from})
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, s := range subs {
		checkSeqs(t, s.c.WaitSeq(t, total, 10*time.Second), s.from, total)
	}
	var stored []event.Event
	testkit.NoError(t, rt.Store.Load(ctx, "hot", 1, func(e event.Event) error {
		stored = append(stored, e)
		return nil
	}))
	checkSeqs(t, stored, 1, total)
}

func TestPanicRestartsAndRecovers(t *testing.T) {
	var fault testkit.Switch
	rt := testkit.Boot(t, actors.Options{
		SessionMiddleware: []actor.ReceiverMiddleware{testkit.PanicWhen(func(m any) bool {
			_, isAppend := m.(*session.Append)
			return isAppend && fault.Armed()
		})},
		Sessions: sessions.Config{Backoff: time.Millisecond},
	})
	ctx := context.Background()
	create(t, rt, "s")
	for i := range 10 {
		_, _, err := rt.Sessions.Append(ctx, "s", delta(t, fmt.Sprint(i)))
		testkit.NoError(t, err)
	}
	fault.Arm()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, _, err := rt.Sessions.Append(short, "s", delta(t, "lost"))
	cancel()
	if err == nil {
		t.Fatal("append succeeded through an injected panic")
	}
	fault.Disarm()
	testkit.Eventually(t, 5*time.Second, "state recovered", func() bool {
		st, err := rt.Sessions.State(ctx, "s")
		return err == nil && st.LastSeq == 11 && st.Title == "t"
	})
	first, _, err := rt.Sessions.Append(ctx, "s", delta(t, "after"))
	testkit.NoError(t, err)
	testkit.Equal(t, first, int64(12))
}

func TestRepeatedFailuresMarkSessionFailed(t *testing.T) {
	var fault testkit.Switch
	rt := testkit.Boot(t, actors.Options{
		SessionMiddleware: []actor.ReceiverMiddleware{testkit.PanicWhen(func(m any) bool {
			_, isState := m.(*session.GetState)
			return isState && fault.Armed()
		})},
		Sessions: sessions.Config{Backoff: time.Millisecond, MaxFailures: 3},
	})
	ctx := context.Background()
	create(t, rt, "doomed")
	fault.Arm()
	testkit.Eventually(t, 10*time.Second, "marked failed", func() bool {
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, _ = rt.Sessions.State(short, "doomed")
		meta, err := rt.Store.Session(ctx, "doomed")
		return err == nil && meta.Status == persistence.StatusFailed
	})
	fault.Disarm()
	meta, err := rt.Store.Session(ctx, "doomed")
	testkit.NoError(t, err)
	if meta.StatusReason == "" {
		t.Fatal("failed without a reason")
	}
	testkit.Eventually(t, 5*time.Second, "refuses work", func() bool {
		_, _, err := rt.Sessions.Append(ctx, "doomed", delta(t, "x"))
		return errors.Is(err, session.ErrFailed)
	})
}

func TestIdleSessionsPassivateAndResurrect(t *testing.T) {
	rt := testkit.Boot(t, actors.Options{IdleTimeout: 50 * time.Millisecond})
	ctx := context.Background()
	create(t, rt, "sleepy")
	_, _, err := rt.Sessions.Append(ctx, "sleepy", delta(t, "a"))
	testkit.NoError(t, err)
	testkit.Eventually(t, 5*time.Second, "passivated", func() bool {
		live, err := rt.Sessions.Live(ctx)
		meta, merr := rt.Store.Session(ctx, "sleepy")
		return err == nil && len(live) == 0 && merr == nil && meta.Status == persistence.StatusCold
	})
	first, _, err := rt.Sessions.Append(ctx, "sleepy", delta(t, "b"))
	testkit.NoError(t, err)
	testkit.Equal(t, first, int64(3))
	meta, err := rt.Store.Session(ctx, "sleepy")
	testkit.NoError(t, err)
	testkit.Equal(t, meta.Status, persistence.StatusLive)
}

func TestSubscriberKeepsSessionAwake(t *testing.T) {
	rt := testkit.Boot(t, actors.Options{IdleTimeout: 20 * time.Millisecond})
	ctx := context.Background()
	create(t, rt, "watched")
	c := testkit.NewCollector(t, rt.System)
	_, err := rt.Sessions.Subscribe(ctx, "watched", 1, false, c.PID())
	testkit.NoError(t, err)
	time.Sleep(150 * time.Millisecond)
	live, err := rt.Sessions.Live(ctx)
	testkit.NoError(t, err)
	testkit.Equal(t, len(live), 1)
	testkit.Equal(t, c.Closed(), "")
}

// A weak subscription (Follow) lets its session passivate, and ends with
// it: a watcher that follows a session only while it is live does not
// keep it live.
func TestFollowerLetsSessionPassivate(t *testing.T) {
	rt := testkit.Boot(t, actors.Options{IdleTimeout: 20 * time.Millisecond})
	ctx := context.Background()
	create(t, rt, "followed")
	c := testkit.NewCollector(t, rt.System)
	_, err := rt.Sessions.Follow(ctx, "followed", 1, c.PID())
	testkit.NoError(t, err)
	testkit.Eventually(t, 5*time.Second, "passivated", func() bool {
		live, err := rt.Sessions.Live(ctx)
		return err == nil && len(live) == 0
	})
	testkit.Eventually(t, 5*time.Second, "the follower told", func() bool { return c.Closed() != "" })
}

// OnSessionLive hears of every incarnation of a created session, whatever
// woke it, with the log's last seq then; a session's creation is not one.
func TestOnSessionLiveNamesTheLastSeq(t *testing.T) {
	type live struct {
		id   string
		last int64
	}
	calls := make(chan live, 8)
	rt := testkit.Boot(t, actors.Options{IdleTimeout: 20 * time.Millisecond,
		OnSessionLive: func(id string, last int64) { calls <- live{id, last} }})
	ctx := context.Background()
	create(t, rt, "woken")
	_, _, err := rt.Sessions.Append(ctx, "woken", delta(t, "a"))
	testkit.NoError(t, err)
	testkit.Eventually(t, 5*time.Second, "passivated", func() bool {
		live, err := rt.Sessions.Live(ctx)
		return err == nil && len(live) == 0
	})
	select {
	case c := <-calls:
		t.Fatalf("told of %v before the session was woken", c)
	default:
	}
	_, err = rt.Sessions.State(ctx, "woken")
	testkit.NoError(t, err)
	select {
	case c := <-calls:
		testkit.Equal(t, c, live{"woken", 2})
	case <-time.After(5 * time.Second):
		t.Fatal("not told the session came live")
	}
}

// Ending a subscription of a session that has stopped does not start it
// again (a watcher told Closed that unsubscribes all the same).
func TestUnsubscribeDoesNotWakeASession(t *testing.T) {
	rt := testkit.Boot(t, actors.Options{})
	ctx := context.Background()
	create(t, rt, "gone")
	c := testkit.NewCollector(t, rt.System)
	sub, err := rt.Sessions.Subscribe(ctx, "gone", 1, false, c.PID())
	testkit.NoError(t, err)
	testkit.NoError(t, rt.Sessions.Kill(ctx, "gone"))
	rt.Sessions.Unsubscribe("gone", sub.Subscription)
	live, err := rt.Sessions.Live(ctx) // routed after the unsubscribe
	testkit.NoError(t, err)
	testkit.Equal(t, len(live), 0)
}
