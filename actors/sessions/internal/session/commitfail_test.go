package session_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // to damage a log behind the runtime's back

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// A prompt whose prompt.queued fails to commit is answered with the
// failure, at once: the session's waiters hear it whatever reply they were
// promised (here *queue.Enqueued), instead of waiting out their timeout.
// The failure is a seq collision, made by a row slipped into the log.
func TestFailedCommitAnswersThePrompt(t *testing.T) {
	p, err := llmserver.NewProvider(llmserver.Script{Default: new(llmserver.Steps(llmserver.Text("ok")))})
	testkit.NoError(t, err)
	rt := testkit.Boot(t, actors.Options{Engine: testkit.Engine(p, event.ToolStyleNative)})
	ctx := context.Background()
	testkit.NoError(t, rt.Sessions.Create(ctx, "s", event.CreatedPayload{Cwd: t.TempDir()}))

	db, err := sql.Open("sqlite3", "file:"+rt.Store.Path()+"?_busy_timeout=5000")
	testkit.NoError(t, err)
	defer db.Close()
	var last int64
	testkit.NoError(t, db.QueryRow("SELECT max(seq) FROM events WHERE session_id = 's'").Scan(&last))
	_, err = db.Exec(`INSERT INTO events (session_id, seq, recorded_at, kind, payload) VALUES ('s', ?, ?, 'session.settings_changed', '{}')`,
		last+1, time.Now().UnixNano())
	testkit.NoError(t, err)

	// The timeout is the facade's own bound, far above the answer's.
	short, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = rt.Sessions.Prompt(short, "s", sessions.PromptRequest{Content: []event.Block{{Type: "text", Text: "hi"}}})
	var unreachable *sessions.UnreachableError
	if err == nil || errors.As(err, &unreachable) || !strings.Contains(err.Error(), "UNIQUE") {
		t.Fatalf("prompt on a log that collides: %v, want the commit's failure", err)
	}
}
