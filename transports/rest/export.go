package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

func (a *API) export(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	b, err := a.exportBundle(ctx, id)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	w.Header().Set("Content-Disposition", `attachment; filename="`+AgentID+"-"+id+`.hydra"`)
	WriteJSON(w, http.StatusOK, b)
}

// maxBundle bounds an import's body.
const maxBundle = 256 << 20

// appendChunk is how many imported events go in one append.
const appendChunk = 1024

type importRequest struct {
	Bundle  json.RawMessage `json:"bundle"`
	Replace bool            `json:"replace"`
	Cwd     *string         `json:"cwd"`
}

func (a *API) importBundle(w http.ResponseWriter, r *http.Request) {
	var req importRequest
	if err := DecodeBody(w, r, &req, maxBundle, false); err != nil {
		Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(req.Bundle) == 0 || string(req.Bundle) == "null" {
		Error(w, http.StatusBadRequest, "bundle is required")
		return
	}
	var b bundle
	created, err := decodeBundle(req.Bundle, &b)
	if err != nil {
		WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid bundle", "details": err.Error()})
		return
	}
	if req.Cwd != nil {
		if *req.Cwd == "" {
			Error(w, http.StatusBadRequest, "cwd may be omitted but not empty")
			return
		}
		if created.Cwd, err = a.checkCwd(*req.Cwd); err != nil {
			Error(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	existing, err := a.findLineage(ctx, b.Session.LineageID)
	if err != nil {
		a.sessionError(w, "", err)
		return
	}
	id := sessions.NewID()
	if existing != "" {
		if !req.Replace {
			WriteJSON(w, http.StatusConflict, map[string]string{"error": "bundle already imported", "existingSessionId": existing})
			return
		}
		a.closing(existing)
		if err := a.cfg.Sessions.Delete(ctx, existing); err != nil {
			a.sessionError(w, existing, err)
			return
		}
		// The session is gone, as a delete makes it: what the daemon held
		// of it (its chain) is not the import's.
		if a.cfg.Deleted != nil {
			a.cfg.Deleted(existing)
		}
		id = existing
	}
	// The history is flattened: a fork's inherited events are the
	// import's own, so it needs no parent here.
	created.ParentSessionID, created.ForkedFromSeq, created.ForkedFromEntry = "", 0, ""
	// The transformers and the spawning session were the exporting
	// daemon's: an import starts with no chain and no parent.
	created.Transformers, created.ChildOf = nil, ""
	created.LineageID, created.ImportedFrom, created.OriginTransport = b.Session.LineageID, b.Session.SessionID, "import"
	if err := a.writeImport(ctx, id, created, &b); err != nil {
		a.sessionError(w, id, err)
		return
	}
	WriteJSON(w, http.StatusCreated, map[string]any{"sessionId": id, "importedFromSessionId": b.Session.SessionID, "replaced": existing != ""})
}

func decodeBundle(raw json.RawMessage, b *bundle) (event.CreatedPayload, error) {
	if err := json.Unmarshal(raw, b); err != nil {
		return event.CreatedPayload{}, err
	}
	return b.check()
}

// writeImport creates session id and appends the bundle's canonical log in
// order, or, from a bundle without one, its conversation.
func (a *API) writeImport(ctx context.Context, id string, created event.CreatedPayload, b *bundle) error {
	if err := a.cfg.Sessions.Create(ctx, id, created); err != nil {
		return err
	}
	if b.Troupe == nil {
		msgs := conversationOf(b.History)
		if len(msgs) == 0 {
			return nil
		}
		_, err := a.cfg.Sessions.ImportHistory(ctx, id, event.HistoryImportedPayload{Source: "hydra bundle " + b.Session.SessionID, Messages: msgs})
		return err
	}
	// The log is session.created and what is appended here, in order, so
	// each event's seq is known before it is appended (and checked after).
	next := int64(2)
	var r renumber
	history := b.Troupe.Events
	for len(history) > 0 {
		n := min(len(history), appendChunk)
		drafts := make([]event.Draft, 0, n)
		for _, e := range history[:n] {
			if e.Kind == event.TransformerAttached {
				continue
			}
			payload := e.Payload
			if e.Kind == event.UpdateTransformed {
				var ok bool
				if payload, ok = r.transformed(e.Seq, payload); !ok {
					continue
				}
			}
			r.add(e.Seq, next+int64(len(drafts)))
			drafts = append(drafts, event.Draft{Kind: e.Kind, Payload: payload})
		}
		first, last, err := a.cfg.Sessions.Append(ctx, id, drafts...)
		if err != nil {
			return err
		}
		if len(drafts) > 0 && first != next {
			return fmt.Errorf("import into %s: its log moved under the import (seq %d, want %d)", id, first, next)
		}
		next = last + 1
		history = history[n:]
	}
	return nil
}

// findLineage returns the local session of lineage l, or "".
func (a *API) findLineage(ctx context.Context, l string) (string, error) {
	metas, err := a.cfg.Sessions.List(ctx, "")
	if err != nil {
		return "", err
	}
	for _, m := range metas {
		c, err := a.created(ctx, m.ID)
		if errors.Is(err, sessions.ErrNotFound) {
			continue
		}
		if err != nil {
			return "", err
		}
		if lineage(m.ID, c) == l {
			return m.ID, nil
		}
	}
	return "", nil
}
