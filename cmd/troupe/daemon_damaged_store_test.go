package main

import (
	"database/sql"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // to damage the store behind the daemon's back

	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// maxDamagedRequests is "a handful": what opening a damaged session may
// cost in model requests at most. The fixed daemon makes none; the broken
// one made thousands.
const maxDamagedRequests = 5

// damage makes session id's log read back short of what the store holds,
// as the damaged file of the issue did: its finished run loses its end
// (run.ended and what follows), and every seq the session takes next is
// already taken. The trigger stands in for the damaged b-tree whose rows
// the read did not return but the insert found: it writes the row the
// insert then collides with, and the collision rolls both back.
func damage(t *testing.T, db *sql.DB, id string) {
	t.Helper()
	var ended int64
	testkit.NoError(t, db.QueryRow(`SELECT max(seq) FROM events WHERE session_id = ? AND kind = 'run.ended'`, id).Scan(&ended))
	_, err := db.Exec(`DELETE FROM events WHERE session_id = ? AND seq >= ?`, id, ended)
	testkit.NoError(t, err)
	_, err = db.Exec(`CREATE TRIGGER damaged_` + strings.ReplaceAll(id, "-", "_") + ` BEFORE INSERT ON events
		WHEN NEW.session_id = '` + id + `'
		BEGIN INSERT INTO events VALUES (NEW.session_id, NEW.seq, 0, 'damaged', x'7b7d'); END`)
	testkit.NoError(t, err)
}

// cutMiddle removes events 3 and 4 of session id: a gap.
func cutMiddle(t *testing.T, db *sql.DB, id string) {
	t.Helper()
	_, err := db.Exec(`DELETE FROM events WHERE session_id = ? AND seq BETWEEN 3 AND 4`, id)
	testkit.NoError(t, err)
}

// A damaged store costs a handful of model requests at most: a session
// whose log reads back short (its finished run looks open, every new seq
// collides) fails after a few restarts with backoff, with the reason, and
// never resumes the run; one whose log has a gap fails at once; the
// daemon's other sessions go on prompting.
func TestDaemonDamagedStoreCostsAHandfulOfModelRequests(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: ptr(llmserver.Steps(llmserver.Text("an answer")))})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY="}
	model := []string{"--provider", "openai", "--model", "tiny"}
	d := startDaemon(t, home, env, model...)
	c := d.dialACP(t, "editor")
	short, _ := c.NewSession(work)
	gapped, _ := c.NewSession(work)
	healthy, _ := c.NewSession(work)
	for _, sid := range []string{short, gapped, healthy} {
		if f := c.WaitAnswer(c.Prompt(sid, "hello")); f.Error != nil {
			t.Fatalf("prompt %s: %s", sid, f.Raw)
		}
	}
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, acpWait), 0)

	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, "troupe.db")+"?_busy_timeout=5000")
	testkit.NoError(t, err)
	damage(t, db, short)
	cutMiddle(t, db, gapped)
	testkit.NoError(t, db.Close())

	before := len(srv.ChatRequests())
	spent := func() int { return len(srv.ChatRequests()) - before }
	d = startDaemon(t, home, env, model...)
	c = d.dialACP(t, "editor")

	f := c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": gapped, "cwd": work, "mcpServers": []any{}}))
	if f.Error == nil || !strings.Contains(f.Error.Message, "inconsistent log") || !strings.Contains(f.Error.Message, "lacks events 3 to 4") {
		t.Fatalf("load of a log with a gap answered %s, want the failure naming the gap", f.Raw)
	}

	// Loading it starts the recovery: the load may be answered before the
	// session fails, or with the failure.
	loaded := c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": short, "cwd": work, "mcpServers": []any{}}))
	var entry struct{ Status, StatusReason string }
	testkit.Eventually(t, 60*time.Second, "the short-read session marked failed", func() bool {
		if n := spent(); n > maxDamagedRequests {
			t.Fatalf("the damaged sessions cost %d model requests", n)
		}
		d.call(t, "GET", "/v1/sessions/"+short, nil, http.StatusOK, &entry)
		return entry.StatusReason != ""
	})
	if !strings.Contains(entry.StatusReason, "already holds seqs") {
		t.Fatalf("failed with reason %q, want one saying the store holds the seqs it took", entry.StatusReason)
	}
	f = c.WaitAnswer(c.Prompt(short, "again"))
	if loaded.Error != nil && f.Error != nil && strings.Contains(f.Error.Message, "not attached") {
		// The load was answered with the failure, so this connection never
		// attached: that answer is the one that must name it.
		f = loaded
	}
	if f.Error == nil || !strings.Contains(f.Error.Message, "session failed") || !strings.Contains(f.Error.Message, "already holds seqs") {
		t.Fatalf("prompt to the failed session answered %s, want the failure and its reason", f.Raw)
	}
	time.Sleep(time.Second) // a loop would show by now
	if n := spent(); n > maxDamagedRequests {
		t.Fatalf("the damaged sessions cost %d model requests", n)
	}

	if f := c.WaitAnswer(c.Call("session/load", map[string]any{"sessionId": healthy, "cwd": work, "mcpServers": []any{}})); f.Error != nil {
		t.Fatalf("load of a healthy session beside the damaged ones: %s", f.Raw)
	}
	if f := c.WaitAnswer(c.Prompt(healthy, "still there?")); f.Error != nil {
		t.Fatalf("prompt to a healthy session beside the damaged ones: %s", f.Raw)
	}
	if n := spent(); n > maxDamagedRequests+1 {
		t.Fatalf("%d model requests for one prompt beside the damaged sessions", n)
	}
}
