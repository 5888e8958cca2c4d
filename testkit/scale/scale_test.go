package scale_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/runtime/datahome"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/scale"
)

// TestRunVerifiesEveryLog runs a few sessions and checks what Run reports
// against the store, then cuts one log and adds to another: Verify must
// name both.
func TestRunVerifiesEveryLog(t *testing.T) {
	home := t.TempDir()
	ctx := context.Background()
	res, err := scale.Run(ctx, scale.Config{Sessions: 4, Prompts: 2, Deltas: 7, Home: home, Logger: testkit.TestLogger(t)})
	testkit.NoError(t, err)
	// created + per prompt (queued, run.started, run.ended) + per answer
	// (step.started, 7 text deltas, message.completed, step.ended) + the
	// tool call (started, completed, its argument deltas).
	perSession := int64(1 + 2*3 + 3*(3+7))
	if res.Sessions != 4 || res.Live != 4 || res.Events < 4*(perSession+2) {
		t.Fatalf("result %+v: want 4 live sessions and at least %d events", res, 4*(perSession+2))
	}
	// At this N every delta's latency is sampled: 3 answers of 7 text
	// deltas a session, and the tool call's argument deltas.
	if res.Wall <= 0 || res.PeakRSS == 0 || res.EventsPerSecond() <= 0 || res.ChunkSamples < 4*3*7 || res.ChunkP99 < res.ChunkP50 {
		t.Fatalf("result %+v: figures missing", res)
	}

	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, datahome.StoreFile))
	testkit.NoError(t, err)
	defer db.Close()
	mustExec(t, db, `DELETE FROM events WHERE session_id = 'scale-000001' AND seq = 20`)
	mustExec(t, db, `UPDATE events SET kind = 'run.interrupted', payload = '{"run_id":"x","policy":"resume"}'
		WHERE session_id = 'scale-000002' AND seq = (SELECT max(seq) FROM events WHERE session_id = 'scale-000002')`)

	store, err := persistence.Open(filepath.Join(home, datahome.StoreFile), persistence.Options{})
	testkit.NoError(t, err)
	defer store.Close()
	ids := []string{"scale-000000", "scale-000001", "scale-000002", "scale-000003"}
	_, err = scale.Verify(ctx, store, ids, scale.Expect{Prompts: 2, Deltas: 7})
	if err == nil {
		t.Fatal("Verify passed logs with a gap and a wrong event")
	}
	msg := err.Error()
	for _, want := range []string{"2 of 4 session logs incomplete", "scale-000001: load: seq 21 where 20 belongs", "scale-000002: events by kind"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "scale-000000") || strings.Contains(msg, "scale-000003") {
		t.Errorf("error %q names a complete log", msg)
	}
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
