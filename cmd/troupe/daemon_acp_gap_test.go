package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	_ "github.com/mattn/go-sqlite3" // to take events out of the store behind the daemon's back

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A store that lost events in the middle of a session's log (a damaged
// file, a hand edit): session/attach answers with an error naming the
// missing seqs instead of waiting forever for them, and the daemon goes on
// serving the session's neighbours.
func TestDaemonACPAttachLogWithGap(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, model := llmEnv(t, llmserver.Steps(llmserver.Text("one")), llmserver.Steps(llmserver.Text("two")))
	d := startDaemon(t, home, env, model...)
	c := d.dialACP(t, "editor")
	sid, _ := c.NewSession(work)
	other, _ := c.NewSession(work)
	for _, text := range []string{"first", "second"} {
		if f := c.WaitAnswer(c.Prompt(sid, text)); f.Error != nil {
			t.Fatalf("prompt %s: %s", text, f.Raw)
		}
	}
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, acpWait), 0)

	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, "troupe.db")+"?_busy_timeout=5000")
	testkit.NoError(t, err)
	var last int64
	testkit.NoError(t, db.QueryRow("SELECT max(seq) FROM events WHERE session_id = ?", sid).Scan(&last))
	if last < 8 {
		t.Fatalf("the session has %d events: too few to cut its middle", last)
	}
	_, err = db.Exec("DELETE FROM events WHERE session_id = ? AND seq BETWEEN 4 AND 6", sid)
	testkit.NoError(t, err)
	testkit.NoError(t, db.Close())

	d = startDaemon(t, home, env, model...)
	for _, policy := range []map[string]any{
		{"sessionId": sid, "historyPolicy": "full"},
		{"sessionId": sid, "historyPolicy": "after_message", "afterMessageId": "ev-2"},
	} {
		c = d.dialACP(t, "editor")
		f := c.WaitAnswer(c.Call("session/attach", policy))
		if f.Error == nil || f.Error.Code != -32603 || !strings.Contains(f.Error.Message, "lacks events 4 to 6") {
			t.Fatalf("attach %v to a log without seqs 4-6 answered %s, want an error naming them", policy["historyPolicy"], f.Raw)
		}
	}
	_, res := c.Attach(map[string]any{"sessionId": other, "historyPolicy": "full"})
	testkit.Equal(t, res.HistoryPolicy, "full")
}
