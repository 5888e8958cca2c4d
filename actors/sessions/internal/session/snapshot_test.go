package session_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

// appendTitled commits n events to session id: bash.executed entries (the
// conversation's) with a settings change naming the title "<label> <i>"
// every tenth, and returns the last title and seq.
func appendTitled(t *testing.T, rt *actors.Runtime, id, label string, n int) (string, int64) {
	t.Helper()
	ctx := context.Background()
	var (
		drafts []event.Draft
		title  string
		last   int64
	)
	flush := func() {
		_, l, err := rt.Sessions.Append(ctx, id, drafts...)
		testkit.NoError(t, err)
		last, drafts = l, drafts[:0]
	}
	for i := range n {
		var d event.Draft
		var err error
		if i%10 == 9 || i == n-1 {
			title = fmt.Sprintf("%s %d", label, i)
			d, err = event.NewDraft(event.SessionSettingsChanged, event.Settings{Title: &title})
		} else {
			d, err = event.NewDraft(event.BashExecuted, event.BashExecutedPayload{Command: "echo", Output: fmt.Sprint(i)})
		}
		testkit.NoError(t, err)
		drafts = append(drafts, d)
		if len(drafts) == 500 {
			flush()
		}
	}
	if len(drafts) > 0 {
		flush()
	}
	return title, last
}

// snapshotAt waits for the session's fold snapshot to reach seq.
func snapshotAt(t *testing.T, store *persistence.Store, id string, seq int64) {
	t.Helper()
	testkit.Eventually(t, 20*time.Second, fmt.Sprintf("a fold snapshot at seq %d", seq), func() bool {
		snap, ok, err := store.LoadSnapshot(context.Background(), id, session.SnapshotKind, session.FoldVersion)
		return err == nil && ok && snap.Seq == seq
	})
}

// settledSnapshot waits for the snapshot the session keeps once its log
// stops at last, and returns its seq: one within SnapshotEvery of last,
// after which the session starts no other. Which seq that is depends on
// when the snapshot goroutines read the log (one that starts late folds
// the batches committed meanwhile), so the test reads it, not guesses it.
func settledSnapshot(t *testing.T, store *persistence.Store, id string, last int64) int64 {
	t.Helper()
	var seq int64
	testkit.Eventually(t, 20*time.Second, fmt.Sprintf("a fold snapshot past seq %d", last-session.SnapshotEvery), func() bool {
		snap, ok, err := store.LoadSnapshot(context.Background(), id, session.SnapshotKind, session.FoldVersion)
		seq = snap.Seq
		return err == nil && ok && snap.Seq > last-session.SnapshotEvery
	})
	return seq
}

// validSnapshot is the seq of the session's fold snapshot the store
// vouches for; it fails the test when there is none.
func validSnapshot(t *testing.T, store *persistence.Store, id string) int64 {
	t.Helper()
	snap, ok, err := store.LoadSnapshot(context.Background(), id, session.SnapshotKind, session.FoldVersion)
	testkit.NoError(t, err)
	if !ok {
		t.Fatal("no valid fold snapshot")
	}
	return snap.Seq
}

// recoverCounting kills the session, recovers it with a State request and
// returns its state and how many events the recovery read.
func recoverCounting(t *testing.T, rt *actors.Runtime, id string) (session.State, int64) {
	t.Helper()
	ctx := context.Background()
	testkit.NoError(t, rt.Sessions.Kill(ctx, id))
	before := rt.Store.EventsRead()
	st, err := rt.Sessions.State(ctx, id)
	testkit.NoError(t, err)
	return st, rt.Store.EventsRead() - before
}

// A long session recovers from its fold snapshot, reading only the log
// after it; the snapshot is never trusted past its seq: events committed
// after it are folded on top, and a snapshot whose check does not match
// the log, that names a seq past the log's end, or of another fold
// version, is discarded (recovery reads the whole log and gets the same
// state) and rebuilt.
func TestSnapshotRecoveryReadsOnlyTheTailAndIsNeverTrustedPastItsSeq(t *testing.T) {
	rt := testkit.Boot(t, actors.Options{})
	ctx := context.Background()
	const id = "long"
	testkit.NoError(t, rt.Sessions.Create(ctx, id, event.CreatedPayload{Cwd: t.TempDir()}))
	_, before := appendTitled(t, rt, id, "before", 3*session.SnapshotEvery)
	snapSeq := settledSnapshot(t, rt.Store, id, before)

	// Events after the snapshot: folded on top of it, and only they read.
	title, last := appendTitled(t, rt, id, "after", 25)
	st, read := recoverCounting(t, rt, id)
	if st.LastSeq != last || st.Title != title {
		t.Fatalf("recovered seq %d title %q, want %d %q", st.LastSeq, st.Title, last, title)
	}
	if read != last-snapSeq {
		t.Fatalf("recovery read %d events, want the %d after the snapshot", read, last-snapSeq)
	}

	db, err := sql.Open("sqlite3", rt.Store.Path()+"?_busy_timeout=5000")
	testkit.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	for _, c := range []struct{ name, damage string }{
		// The fold says something the log does not: were its check taken
		// at face value, the title would be the snapshot's.
		{"check mismatch", `UPDATE snapshots SET check_hash = x'00', data = json_set(CAST(data AS TEXT), '$.state.Title', 'forged')`},
		{"past the log's end", "UPDATE snapshots SET seq = seq + 1000000"},
		{"other fold version", "UPDATE snapshots SET version = version + 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			validSnapshot(t, rt.Store, id)
			if _, err := db.Exec(c.damage+" WHERE session_id = ?", id); err != nil {
				t.Fatal(err)
			}
			discarded := rt.Store.SnapshotsDiscarded()
			st, read := recoverCounting(t, rt, id)
			if st.LastSeq != last || st.Title != title {
				t.Fatalf("recovered seq %d title %q, want %d %q", st.LastSeq, st.Title, last, title)
			}
			if read < last {
				t.Fatalf("recovery read %d events of %d: it trusted the damaged snapshot", read, last)
			}
			if rt.Store.SnapshotsDiscarded() == discarded {
				t.Fatal("the damaged snapshot was not counted as discarded")
			}
			snapshotAt(t, rt.Store, id, last) // rebuilt
			if _, read := recoverCounting(t, rt, id); read != 0 {
				t.Fatalf("recovery from the rebuilt snapshot read %d events, want 0", read)
			}
		})
	}
}
