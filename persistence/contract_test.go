package persistence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit/pgtest"
)

// The store's contract, run against both databases: what the session
// actors and the store writer rely on must hold the same on SQLite and on
// PostgreSQL.

// backend makes a new, empty store location of one database.
type backend struct {
	name   string
	target func(t testing.TB) string
}

var backends = []backend{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "troupe.db") }},
	{"postgres", func(t testing.TB) string { return pgtest.Database(t) }},
}

// eachBackend runs test once per database, as a subtest named after it.
func eachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

func openTarget(t *testing.T, target string, opts Options) *Store {
	t.Helper()
	s, err := OpenTarget(target, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// seqsOf reads session's log and returns its seqs and payloads in order.
func seqsOf(t *testing.T, s *Store, session string) ([]int64, []string) {
	t.Helper()
	var seqs []int64
	var payloads []string
	if err := s.Load(context.Background(), session, 1, func(e event.Event) error {
		seqs = append(seqs, e.Seq)
		payloads = append(payloads, string(e.Payload))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return seqs, payloads
}

// wantLog fails unless seqs are 1..n, each once, in order.
func wantLog(t *testing.T, seqs []int64, n int) {
	t.Helper()
	if len(seqs) != n {
		t.Fatalf("log has %d events, want %d: %v", len(seqs), n, seqs)
	}
	for i, seq := range seqs {
		if seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: a gap or a duplicate in %v", i, seq, seqs)
		}
	}
}

func TestContractAppendAndLoad(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := openTarget(t, b.target(t), Options{Owner: ThisProcess("test")})
		ctx := context.Background()
		meta := SessionMeta{ID: "s1", Title: "first", Cwd: "/w", Interactive: new(true), Transformers: []string{"a", "b"}}
		out := mustCommit(t, s, Batch{Claims: []string{"s1"}, Metas: []SessionMeta{meta}, Events: events("s1", 1, 300)})
		if out.Epochs["s1"] != 1 {
			t.Fatalf("first claim's epoch %d, want 1", out.Epochs["s1"])
		}
		mustCommit(t, s, Batch{Events: events("s1", 301, 5)})
		seqs, payloads := seqsOf(t, s, "s1")
		wantLog(t, seqs, 305)
		testEqual(t, payloads[299], `{"text":"t300"}`)
		last, err := s.LastSeq(ctx, "s1")
		if err != nil || last != 305 {
			t.Fatalf("last seq %d, %v", last, err)
		}
		var ranged []int64
		if err := s.LoadRange(ctx, "s1", 10, 12, func(e event.Event) error { ranged = append(ranged, e.Seq); return nil }); err != nil {
			t.Fatal(err)
		}
		testEqual(t, fmt.Sprint(ranged), "[10 11 12]")
		got, err := s.Session(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		testEqual(t, got.Title, "first")
		testEqual(t, got.LastSeq, int64(305))
		testEqual(t, got.Status, StatusLive)
		testEqual(t, *got.Interactive, true)
		testEqual(t, fmt.Sprint(got.Transformers), "[a b]")
		if _, err := s.Session(ctx, "nope"); !errors.Is(err, ErrSessionNotFound) {
			t.Fatalf("unknown session: %v", err)
		}
	})
}

// However many appenders race for one session's log, from two stores
// that both write as its lease holder, the log ends with every
// acknowledged event exactly once, no gap and no duplicate: a seq already
// taken is refused by the key, a seq past the next one by the seq check.
func TestContractNoGapNoDuplicateUnderConcurrentAppenders(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		target := b.target(t)
		self := ThisProcess("test")
		stores := []*Store{openTarget(t, target, Options{Owner: self}), openTarget(t, target, Options{Owner: self})}
		ctx := context.Background()
		mustCommit(t, stores[0], Batch{Claims: []string{"s"}, Metas: []SessionMeta{{ID: "s"}}})

		const appenders, each = 6, 15
		var mu sync.Mutex
		acked := map[string]int{}
		var wg sync.WaitGroup
		errs := make(chan error, appenders)
		for a := range appenders {
			wg.Go(func() {
				s := stores[a%len(stores)]
				for i := 0; i < each; {
					last, err := s.LastSeq(ctx, "s")
					if err != nil {
						errs <- err
						return
					}
					// Every third appender aims one past the next seq, as
					// a writer whose idea of the log is stale would: it
					// gets in only when another appended in between.
					stale := a%3 == 2
					seq := last + 1
					if stale {
						seq++
					}
					payload := fmt.Sprintf(`{"by":%d,"n":%d}`, a, i)
					out, err := s.Commit(ctx, Batch{Events: []event.Event{{SessionID: "s", Seq: seq, RecordedAt: time.Now(),
						Kind: event.MessageDelta, Payload: json.RawMessage(payload)}}})
					if err != nil {
						errs <- err
						return
					}
					refused := out.LeftOut("s")
					var gap *SeqError
					switch {
					case refused == nil:
						mu.Lock()
						acked[payload]++
						mu.Unlock()
						i++
					case errors.As(refused, &gap):
						if !stale {
							errs <- fmt.Errorf("seq %d, after the log's last as read, refused as a gap: %v", seq, gap)
							return
						}
						i++ // a stale try, refused as it must be
					case IsSeqConflict(refused):
					default:
						errs <- refused
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		seqs, payloads := seqsOf(t, stores[0], "s")
		wantLog(t, seqs, len(acked))
		for _, p := range payloads {
			if acked[p] != 1 {
				t.Fatalf("event %s in the log, acknowledged %d times", p, acked[p])
			}
		}
		// A gap is refused by name, the rest of the batch written.
		out := mustCommit(t, stores[1], Batch{Claims: []string{"t"}, Metas: []SessionMeta{{ID: "t"}}, Events: append(events("s", len(seqs)+2, 1), events("t", 1, 1)...)})
		var gap *SeqError
		if err := out.LeftOut("s"); !errors.As(err, &gap) || gap.Want != int64(len(seqs)+1) || out.LeftOut("t") != nil {
			t.Fatalf("a gap: %+v", out)
		}
		// A seq taken is refused by the key.
		if out := mustCommit(t, stores[1], Batch{Events: events("s", 3, 1)}); !IsSeqConflict(out.LeftOut("s")) {
			t.Fatalf("a duplicate: %+v", out)
		}
		after, _ := seqsOf(t, stores[0], "s")
		wantLog(t, after, len(seqs))
	})
}

// A lease lapsed is taken over by another owner at the next epoch; the
// old owner, back, has its appends refused by name (*FencedError) and
// nothing of them written; a claim of its own after a release also moves
// the epoch on, so that writes made under the one before are refused.
func TestContractLeaseTakeoverFencesTheOldOwner(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		target := b.target(t)
		ttl := 300 * time.Millisecond
		a := openTarget(t, target, Options{Owner: Owner{ID: "a", PID: 1, Host: "elsewhere", Command: "troupe a"}, LeaseTTL: ttl})
		bb := openTarget(t, target, Options{Owner: ThisProcess("test b"), LeaseTTL: ttl})
		ctx := context.Background()

		out := mustCommit(t, a, Batch{Claims: []string{"s"}, Metas: []SessionMeta{{ID: "s"}}, Events: events("s", 1, 2)})
		epochA := out.Epochs["s"]
		if out := mustCommit(t, bb, Batch{Claims: []string{"s"}}); out.Refused["s"].ID != "a" || out.Refused["s"].Epoch != epochA {
			t.Fatalf("claim while a's heartbeat is fresh: %+v", out)
		}
		time.Sleep(2 * ttl) // a stalls past its lease
		out = mustCommit(t, bb, Batch{Claims: []string{"s"}})
		epochB := out.Epochs["s"]
		if len(out.Refused) != 0 || epochB != epochA+1 {
			t.Fatalf("takeover: %+v, epoch %d after %d", out, epochB, epochA)
		}
		mustCommit(t, bb, Batch{Events: events("s", 3, 1), Epochs: map[string]int64{"s": epochB}})

		out = mustCommit(t, a, Batch{Events: events("s", 4, 1), Epochs: map[string]int64{"s": epochA},
			Statuses: []StatusChange{{SessionID: "s", Status: StatusCold}}})
		var fenced *FencedError
		if err := out.LeftOut("s"); !errors.As(err, &fenced) || !errors.Is(err, ErrLeaseLost) ||
			fenced.Epoch != epochA || fenced.Current != epochB || fenced.Owner != bb.Owner().ID {
			t.Fatalf("the old owner's append: %v", out.LeftOut("s"))
		}
		seqs, _ := seqsOf(t, a, "s")
		wantLog(t, seqs, 3)
		if m, _ := a.Session(ctx, "s"); m.Status != StatusLive {
			t.Fatalf("the old owner's status went in: %s", m.Status)
		}
		h, err := a.Lease(ctx, "s")
		if err != nil || h == nil || h.ID != bb.Owner().ID || h.Epoch != epochB {
			t.Fatalf("lease %+v, %v", h, err)
		}

		// b releases and claims again: a new epoch, and the old one's
		// writes are refused although b holds the lease.
		mustCommit(t, bb, Batch{Releases: []string{"s"}})
		if h, err := bb.Lease(ctx, "s"); err != nil || h != nil {
			t.Fatalf("released lease reads %+v, %v", h, err)
		}
		epochB2 := mustCommit(t, bb, Batch{Claims: []string{"s"}}).Epochs["s"]
		if epochB2 != epochB+1 {
			t.Fatalf("claim after a release: epoch %d, want %d", epochB2, epochB+1)
		}
		out = mustCommit(t, bb, Batch{Events: events("s", 4, 1), Epochs: map[string]int64{"s": epochB}})
		if err := out.LeftOut("s"); !errors.As(err, &fenced) || fenced.Current != epochB2 {
			t.Fatalf("an append under the epoch before: %v", err)
		}
		mustCommit(t, bb, Batch{Events: events("s", 4, 1), Epochs: map[string]int64{"s": epochB2}})
		seqs, _ = seqsOf(t, a, "s")
		wantLog(t, seqs, 4)
	})
}

// A snapshot is returned only while the log vouches for it.
func TestContractSnapshotsAreVouchedForByTheLog(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		s := openTarget(t, b.target(t), Options{})
		ctx := context.Background()
		mustCommit(t, s, Batch{Metas: []SessionMeta{{ID: "s"}}, Events: events("s", 1, 10)})
		snap := Snapshot{Kind: "fold", Version: 3, Seq: 7, Data: []byte("state at 7")}
		if err := s.SaveSnapshot(ctx, "s", snap); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.LoadSnapshot(ctx, "s", "fold", 3)
		if err != nil || !ok || got.Seq != 7 || string(got.Data) != "state at 7" {
			t.Fatalf("snapshot %+v, %v, %v", got, ok, err)
		}
		// Replaced as the log grows.
		snap.Seq, snap.Data = 10, []byte("state at 10")
		if err := s.SaveSnapshot(ctx, "s", snap); err != nil {
			t.Fatal(err)
		}
		if got, ok, _ := s.LoadSnapshot(ctx, "s", "fold", 3); !ok || got.Seq != 10 {
			t.Fatalf("replaced snapshot %+v, %v", got, ok)
		}
		before := s.SnapshotsDiscarded()
		if _, ok, _ := s.LoadSnapshot(ctx, "s", "fold", 4); ok {
			t.Fatal("a snapshot of another version was returned")
		}
		if err := s.SaveSnapshot(ctx, "s", Snapshot{Kind: "fold", Version: 3, Seq: 11}); err == nil {
			t.Fatal("a snapshot past the log's end was saved")
		}
		// The log replaced under it: the event at its seq is another.
		other := events("s", 1, 12)
		other[9].Payload = json.RawMessage(`{"text":"rewritten"}`)
		if err := s.Import(ctx, Import{Meta: SessionMeta{ID: "s"}, Events: append([]event.Event{{SessionID: "s", Seq: 1,
			RecordedAt: time.Now(), Kind: event.SessionCreated, Payload: json.RawMessage(`{}`)}}, other[1:]...), Replace: true}); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := s.LoadSnapshot(ctx, "s", "fold", 3); ok {
			t.Fatal("a snapshot of a replaced log was returned")
		}
		if got := s.SnapshotsDiscarded() - before; got != 1 {
			t.Fatalf("discarded %d, want 1 (the other version); the replaced log's snapshot went with its session", got)
		}
	})
}

// A follower reading through another store sees every event appended,
// once and in order, whichever store wrote it.
func TestContractFollowerSeesEveryCommit(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		target := b.target(t)
		w := openTarget(t, target, Options{Owner: ThisProcess("test")})
		r := openTarget(t, target, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		mustCommit(t, w, Batch{Claims: []string{"s"}, Metas: []SessionMeta{{ID: "s"}}, Events: events("s", 1, 3)})
		got := make(chan int64, 100)
		done := make(chan error, 1)
		go func() {
			done <- r.Follow(ctx, "s", 2, func(e event.Event) error { got <- e.Seq; return nil })
		}()
		for seq := 4; seq <= 20; seq += 4 {
			mustCommit(t, w, Batch{Events: events("s", seq, 4)})
		}
		for want := int64(2); want <= 23; want++ {
			select {
			case seq := <-got:
				if seq != want {
					t.Fatalf("followed seq %d, want %d", seq, want)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("follower stopped at %d", want-1)
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		select {
		case seq := <-got:
			t.Fatalf("followed seq %d past the log's end", seq)
		default:
		}
	})
}

// PostgreSQL's commits notify the followers' store: a subscription wakes
// on a commit by another store, with no poll involved (only
// notifications reach the channel).
func TestPostgresCommitNotifiesFollowers(t *testing.T) {
	target := pgtest.Database(t)
	w := openTarget(t, target, Options{Owner: ThisProcess("test")})
	r := openTarget(t, target, Options{})
	mustCommit(t, w, Batch{Claims: []string{"s"}, Metas: []SessionMeta{{ID: "s"}}})
	wake, stop := r.tips.subscribe("s")
	defer stop()
	other, stopOther := r.tips.subscribe("t")
	defer stopOther()
	waitFor(t, 30*time.Second, "the LISTEN connection", r.tips.listening)
	// Connecting wakes every follower once: drain that.
	for _, ch := range []<-chan struct{}{wake, other} {
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatal("no wake after connecting")
		}
	}
	mustCommit(t, w, Batch{Events: events("s", 1, 2)})
	select {
	case <-wake:
	case <-time.After(30 * time.Second):
		t.Fatal("a commit notified no follower")
	}
	select {
	case <-other:
		t.Fatal("a commit to s woke t's follower")
	default:
	}
}
