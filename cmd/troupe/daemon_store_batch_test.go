package main

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // to damage a session's log behind the daemon's back

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/acpclient"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// One session's bad write never fails another session's events in the
// same group commit. A row slipped into session A's log behind the
// daemon's back (a damaged store) makes A's next append collide on its
// seq; B is streaming a reply meanwhile. The test holds the store's write
// lock while A's colliding prompt and B's deltas reach the store writer,
// so they wait in one batch: A's prompt is answered with the collision,
// and B's reply streams on to end_turn, with nothing of it failed,
// recovered or interrupted.
func TestDaemonOneSessionsCollisionSparesItsBatch(t *testing.T) {
	home := t.TempDir()
	const chunks = 40
	var steps []llmserver.Step
	var want strings.Builder
	for i := range chunks {
		text := fmt.Sprintf("b%d ", i)
		want.WriteString(text)
		steps = append(steps, llmserver.Text(text), llmserver.Delay(40*time.Millisecond))
	}
	// A's prompt, folded before its commit failed, may start a run that
	// asks the model (what a session does after a failed commit is its
	// recovery's business, not this test's): it gets a short answer.
	short := llmserver.Steps(llmserver.Text("a"))
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Replies: []llmserver.Reply{llmserver.Steps(steps...)}, Default: &short})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	model := []string{"--provider", "openai", "--model", "tiny"}
	d := startDaemon(t, home, env, model...)
	ca, cb := d.dialACP(t, "a"), d.dialACP(t, "b")
	a, _ := ca.NewSession(t.TempDir())
	b, _ := cb.NewSession(t.TempDir())

	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, "troupe.db")+"?_busy_timeout=5000&_txlock=immediate")
	testkit.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(1)

	bPrompt := cb.Prompt(b, "stream")
	streamed := cb.Until(func(f acpclient.Frame) bool { return f.IsUpdate("agent_message_chunk") })

	// BEGIN IMMEDIATE takes the write lock: the writer's next commit waits
	// for it (its busy timeout is 5 s) while the batch after it gathers.
	tx, err := db.Begin()
	testkit.NoError(t, err)
	var last int64
	testkit.NoError(t, tx.QueryRow("SELECT max(seq) FROM events WHERE session_id = ?", a).Scan(&last))
	_, err = tx.Exec(`INSERT INTO events (session_id, seq, recorded_at, kind, payload) VALUES (?, ?, ?, 'session.settings_changed', '{}')`,
		a, last+1, time.Now().UnixNano())
	testkit.NoError(t, err)
	// B's next append goes in flight and waits on the lock; the ones
	// after it, and A's prompt, gather in the pending batch.
	time.Sleep(300 * time.Millisecond)
	aPrompt := ca.Prompt(a, "collide")
	time.Sleep(300 * time.Millisecond)
	testkit.NoError(t, tx.Commit())

	fa := ca.WaitAnswer(aPrompt)
	if fa.Error == nil || !strings.Contains(fa.Error.Message, "UNIQUE") {
		t.Fatalf("A's colliding prompt answered %s, want the seq collision", fa.Raw)
	}
	fb := cb.Until(func(f acpclient.Frame) bool { return f.Answers(bPrompt) })
	if got := fb[len(fb)-1]; got.Error != nil || string(got.Result) != `{"stopReason":"end_turn"}` {
		t.Fatalf("B's prompt answered %s, want end_turn", got.Raw)
	}
	testkit.Equal(t, strings.TrimSpace(acpclient.Chunks(t, append(streamed, fb...))), strings.TrimSpace(want.String()))

	// B's log holds its whole run, once, and nothing of a recovery.
	rows, err := db.Query("SELECT kind FROM events WHERE session_id = ? ORDER BY seq", b)
	testkit.NoError(t, err)
	defer rows.Close()
	kinds := map[string]int{}
	for rows.Next() {
		var k string
		testkit.NoError(t, rows.Scan(&k))
		kinds[k]++
	}
	testkit.NoError(t, rows.Err())
	if kinds["run.interrupted"] != 0 || kinds["run.started"] != 1 || kinds["run.ended"] != 1 || kinds["message.delta"] != chunks {
		t.Fatalf("B's log: %v, want one run of %d deltas and no interruption", kinds, chunks)
	}
	for _, line := range strings.Split(d.proc.Stderr(), "\n") {
		if strings.Contains(line, "session="+b) && strings.Contains(line, "recovering from the store") {
			t.Fatalf("B recovered: %s", line)
		}
	}
}
