// Package coldstore fills a store with many cold sessions at once, for the
// tests and benchmarks of what a daemon pays for sessions it knows but
// does not host: each session's row and a short log of one finished turn
// (session.created, a prompt, its run, a streamed reply), written through
// persistence in large batches rather than through session actors, so
// that 100,000 sessions take seconds.
//
// It writes nothing else: no lease (the sessions are cold, as a daemon
// leaves them after passivating them), no snapshot.
package coldstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	_ "github.com/mattn/go-sqlite3" // the driver persistence uses
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
)

// Options shape the seeded sessions.
type Options struct {
	// Cwds is how many working directories the sessions share, in turn
	// (session i works in Dir(i % Cwds)); 0 means 10.
	Cwds int
	// Deltas is how many message.delta events each reply streams; 0
	// means 8.
	Deltas int
	// Piped makes every Piped-th session non-interactive (troupe cat's),
	// which lists leave out unless asked; 0 makes none.
	Piped int
	// Start is the first session's time; session i is one second after
	// session i-1, so the most recently updated is the last. Zero means
	// n seconds before now.
	Start time.Time
}

// batchSessions is how many sessions one commit writes.
const batchSessions = 1000

// ID is the id of the i-th seeded session.
func ID(i int) string { return fmt.Sprintf("s-cold%07d", i) }

// Dir is the working directory of the sessions of cwd index k.
func Dir(k int) string { return fmt.Sprintf("/work/project-%02d", k) }

// Word is a word only the i-th session's reply holds, for searches.
func Word(i int) string { return fmt.Sprintf("zebra%07d", i) }

// Title is the i-th session's title.
func Title(i int) string { return fmt.Sprintf("cold session %d", i) }

// Seed writes n cold sessions into the store at path (creating and
// migrating it if needed), sessions 0 to n-1.
func Seed(ctx context.Context, path string, n int, opts Options) error {
	if opts.Cwds <= 0 {
		opts.Cwds = 10
	}
	if opts.Deltas <= 0 {
		opts.Deltas = 8
	}
	if opts.Start.IsZero() {
		opts.Start = time.Now().Add(-time.Duration(n) * time.Second).UTC().Truncate(time.Second)
	}
	if err := write(ctx, path, n, opts); err != nil {
		return err
	}
	return backdate(ctx, path, n, opts)
}

// write commits the sessions through the store, batchSessions at a time.
func write(ctx context.Context, path string, n int, opts Options) error {
	store, err := persistence.Open(path, persistence.Options{Synchronous: "OFF"})
	if err != nil {
		return fmt.Errorf("seed %s: %w", path, err)
	}
	defer store.Close()
	for from := 0; from < n; from += batchSessions {
		var b persistence.Batch
		for i := from; i < min(from+batchSessions, n); i++ {
			m, evs, err := session(i, opts)
			if err != nil {
				return fmt.Errorf("seed %s: %w", path, err)
			}
			b.Metas = append(b.Metas, m)
			b.Events = append(b.Events, evs...)
		}
		if _, err := store.Commit(ctx, b); err != nil {
			return fmt.Errorf("seed %s: sessions %d to %d: %w", path, from, from+len(b.Metas)-1, err)
		}
	}
	return store.Close()
}

// backdate gives each session's row the time of its log: a commit stamps
// a new row with its own time, and a store's sessions were not all made
// in the same second.
func backdate(ctx context.Context, path string, n int, opts Options) error {
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		return fmt.Errorf("seed %s: %w", path, err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("seed %s: %w", path, err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, "UPDATE sessions SET created_at = ?, updated_at = ? WHERE id = ?")
	if err != nil {
		return fmt.Errorf("seed %s: %w", path, err)
	}
	for i := range n {
		at := opts.Start.Add(time.Duration(i) * time.Second).UnixNano()
		if _, err := stmt.ExecContext(ctx, at, at, ID(i)); err != nil {
			return fmt.Errorf("seed %s: session %d's time: %w", path, i, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("seed %s: %w", path, err)
	}
	return nil
}

// session is the i-th session's row and log.
func session(i int, opts Options) (persistence.SessionMeta, []event.Event, error) {
	id := ID(i)
	at := opts.Start.Add(time.Duration(i) * time.Second)
	interactive := opts.Piped <= 0 || i%opts.Piped != 0
	provider, model := "openai", "fake"
	usage := event.Usage{Input: 120, Output: 40}
	meta := persistence.SessionMeta{
		ID: id, Title: Title(i), Cwd: Dir(i % opts.Cwds), Status: persistence.StatusCold,
		Provider: provider, Model: model, Usage: usage, Interactive: &interactive, ContextUsed: 160,
	}
	prompt, reply, run := "msg-p"+id, "msg-r"+id, "msg-p"+id
	text := "the answer mentions " + Word(i) + " and nothing else"
	payloads := []struct {
		kind event.Kind
		p    any
	}{
		{event.SessionCreated, event.CreatedPayload{Cwd: meta.Cwd, Settings: event.Settings{Provider: &provider, Model: &model},
			Interactive: &interactive, OriginClient: "coldstore", OriginTransport: "websocket"}},
		{event.SessionSettingsChanged, event.Settings{Title: &meta.Title}},
		{event.PromptQueued, event.PromptQueuedPayload{MessageID: prompt, Delivery: "prompt",
			Content: []event.Block{{Type: "text", Text: "question " + fmt.Sprint(i)}}}},
		{event.RunStarted, event.RunStartedPayload{RunID: run}},
		{event.StepStarted, event.StepStartedPayload{RunID: run, Step: 1, MaxSteps: 50, MessageCount: 1, MessageID: reply, ToolStyle: "native"}},
	}
	for k := range opts.Deltas {
		chunk := "…"
		if k == 0 {
			chunk = text
		}
		payloads = append(payloads, struct {
			kind event.Kind
			p    any
		}{event.MessageDelta, event.MessageDeltaPayload{RunID: run, MessageID: reply, Index: k, Channel: event.ChannelText, Text: chunk}})
	}
	payloads = append(payloads, []struct {
		kind event.Kind
		p    any
	}{
		{event.MessageCompleted, event.MessageCompletedPayload{RunID: run, MessageID: reply, Text: text}},
		{event.StepEnded, event.StepEndedPayload{RunID: run, Step: 1, MessageID: reply, FinishReason: "stop", Usage: usage}},
		{event.RunEnded, event.RunEndedPayload{RunID: run, StopReason: "end_turn", Usage: usage}},
	}...)
	evs := make([]event.Event, 0, len(payloads))
	for k, p := range payloads {
		raw, err := json.Marshal(p.p)
		if err != nil {
			return persistence.SessionMeta{}, nil, fmt.Errorf("session %s: %s: %w", id, p.kind, err)
		}
		evs = append(evs, event.Event{SessionID: id, Seq: int64(k + 1), RecordedAt: at, Kind: p.kind, Payload: raw})
	}
	return meta, evs, nil
}
