package sessions

import (
	"context"
	"fmt"
	"time"

	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
)

// ErrImportExists: an import under an id that already has a log (without
// Replace).
var ErrImportExists = persistence.ErrSessionExists

// ImportRequest is a session rebuilt whole from a bundle: its
// session.created, then the events after it, in order. The caller has
// made the bundle's settings its own (a bundle is untrusted: its MCP
// servers, approval mode, crash policy and directories are the importer's
// to decide); Import makes sure the log starts nothing.
type ImportRequest struct {
	// ID is the session's id: a new one (NewID), or with Replace the
	// session replaced, which is stopped and deleted in the same
	// transaction that writes the import.
	ID      string
	Replace bool
	Created event.CreatedPayload
	Events  []event.Draft
}

// ImportResult says what the import closed of the log it was given.
type ImportResult struct {
	LastSeq int64
	// InterruptedRun is the run the log left in flight, ended as
	// interrupted ("" when none was).
	InterruptedRun string
	// CancelledPrompts are the prompts the log left waiting, cancelled.
	CancelledPrompts []string
}

// Import writes a session's whole log at once, with no session actor: a
// crash at any point leaves all of it or none of it. What the log left
// open is closed in it first (session.SealImport: a run in flight ends as
// interrupted, waiting prompts are cancelled), so hosting the session
// later resumes nothing and runs nothing. Refused with ErrImportExists
// when the id has a log (without Replace); with Replace, ErrNotFound when
// it has none, and as Delete refuses.
func (c *Client) Import(ctx context.Context, req ImportRequest) (ImportResult, error) {
	var res ImportResult
	log, err := importLog(req)
	if err != nil {
		return res, err
	}
	now := time.Now().UTC()
	sealed, err := session.SealImport(req.ID, log, now)
	if err != nil {
		return res, err
	}
	for _, d := range sealed.Drafts {
		log = append(log, event.Event{SessionID: req.ID, Seq: int64(len(log) + 1), RecordedAt: now, Kind: d.Kind, Payload: d.Payload})
	}
	if req.Replace {
		// The replaced session's actor must not write again: stop it
		// first, as Delete does.
		if _, err := c.Meta(ctx, req.ID); err != nil {
			return res, err
		}
		if err := c.Kill(ctx, req.ID); err != nil {
			return res, fmt.Errorf("import over %s: %w", req.ID, err)
		}
	}
	if err := c.store.Import(ctx, persistence.Import{Meta: sealed.Meta, Events: log, Replace: req.Replace}); err != nil {
		return res, err
	}
	return ImportResult{LastSeq: int64(len(log)), InterruptedRun: sealed.Run, CancelledPrompts: sealed.Cancelled}, nil
}

// importLog is the request as a log: session.created at seq 1, then each
// draft, validated as an append validates a client's.
func importLog(req ImportRequest) ([]event.Event, error) {
	if req.ID == "" {
		return nil, fmt.Errorf("import: no session id")
	}
	created, err := event.NewDraft(event.SessionCreated, req.Created)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", req.ID, err)
	}
	now := time.Now().UTC()
	log := make([]event.Event, 0, len(req.Events)+8)
	log = append(log, event.Event{SessionID: req.ID, Seq: 1, RecordedAt: now, Kind: created.Kind, Payload: created.Payload})
	for i, d := range req.Events {
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("import %s: event %d: %w", req.ID, i, err)
		}
		if d.Kind == event.SessionCreated {
			return nil, fmt.Errorf("import %s: event %d: %s only opens a log", req.ID, i, d.Kind)
		}
		log = append(log, event.Event{SessionID: req.ID, Seq: int64(i + 2), RecordedAt: now, Kind: d.Kind, Payload: d.Payload})
	}
	return log, nil
}
