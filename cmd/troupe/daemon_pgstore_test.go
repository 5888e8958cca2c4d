package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
	"github.com/troupehq/troupe/testkit/pgtest"
)

// A daemon pointed at PostgreSQL ($TROUPE_STORE, then --store) keeps its
// sessions there, not in the home: a session created and prompted over
// ACP against the scripted model is in the database, and a restarted
// daemon serves the same history from it.
func TestDaemonKeepsSessionsInPostgres(t *testing.T) {
	store := pgtest.Database(t)
	home, work := t.TempDir(), t.TempDir()
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", Default: ptr(llmserver.Steps(llmserver.Text("an answer kept in postgres")))})
	env := []string{"OPENAI_BASE_URL=" + srv.URL() + "/v1", "OPENAI_API_KEY=", "TROUPE_STORE=" + store}
	model := []string{"--provider", "openai", "--model", "tiny"}

	d := startDaemonBinary(t, home, env, model...)
	c := d.dialACP(t, "editor")
	id, _ := c.NewSession(work)
	if f := c.WaitAnswer(c.Prompt(id, "hello")); f.Error != nil {
		t.Fatalf("prompt: %s", f.Raw)
	}
	before := historyLines(t, d, id)
	if !strings.Contains(strings.Join(before, "\n"), "an answer kept in postgres") {
		t.Fatalf("history lacks the answer:\n%s", strings.Join(before, "\n"))
	}
	d.proc.Signal(syscall.SIGTERM)
	testkit.Equal(t, d.proc.Wait(t, acpWait), 0)

	if _, err := os.Stat(filepath.Join(home, "troupe.db")); !os.IsNotExist(err) {
		t.Fatalf("the home has a SQLite store: %v", err)
	}
	s, err := persistence.OpenPostgres(store, persistence.Options{})
	testkit.NoError(t, err)
	ctx := context.Background()
	meta, err := s.Session(ctx, id)
	testkit.NoError(t, err)
	testkit.Equal(t, meta.Status, persistence.StatusCold)
	var kinds []event.Kind
	testkit.NoError(t, s.Load(ctx, id, 1, func(e event.Event) error { kinds = append(kinds, e.Kind); return nil }))
	if int64(len(kinds)) != meta.LastSeq || !slices.Contains(kinds, event.MessageCompleted) || !slices.Contains(kinds, event.RunEnded) {
		t.Fatalf("the log in postgres (last seq %d): %v", meta.LastSeq, kinds)
	}
	holder, err := s.Lease(ctx, id)
	testkit.NoError(t, err)
	if holder != nil {
		t.Fatalf("the stopped daemon still holds the lease: %+v", holder)
	}
	testkit.NoError(t, s.Close())

	// Restarted with the flag instead of the environment.
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TROUPE_STORE=") })
	d = startDaemonBinary(t, home, env, append(model, "--store", store)...)
	after := historyLines(t, d, id)
	if !slices.Equal(before, after) {
		t.Fatalf("history after the restart differs:\nbefore:\n%s\nafter:\n%s", strings.Join(before, "\n"), strings.Join(after, "\n"))
	}
	c = d.dialACP(t, "editor")
	if replayed, res := c.Attach(map[string]any{"sessionId": id, "historyPolicy": "full"}); res.SessionID != id || len(replayed) == 0 {
		t.Fatalf("attach after the restart: %+v, %d replayed", res, len(replayed))
	}
	if f := c.WaitAnswer(c.Prompt(id, "again")); f.Error != nil {
		t.Fatalf("prompt after the restart: %s", f.Raw)
	}
}

// A store URL with a password is refused: it would be written in the
// pid file and on command lines.
func TestDaemonRefusesAStorePassword(t *testing.T) {
	r := cli(t, nil, "", "daemon", "--home", t.TempDir(), "--store", "postgres://u:secret@localhost/db")
	testkit.Equal(t, r.code, 2)
	if !strings.Contains(r.stderr, "PGPASSWORD") || strings.Contains(r.stderr, "secret") {
		t.Fatalf("stderr: %s", r.stderr)
	}
}
