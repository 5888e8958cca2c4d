package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/workdir"
	"github.com/troupehq/troupe/transports/httpjson"
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
	w.Header().Set("Content-Disposition", `attachment; filename="`+b.Session.AgentID+"-"+id+`.hydra"`)
	httpjson.WriteJSON(w, http.StatusOK, b)
}

// maxBundle bounds an import's body.
const maxBundle = 256 << 20

// importRequest is POST /v1/sessions/import's body. Replace (hydra's)
// replaces the local session of the bundle's lineage, keeping its id; the
// session must be named (ReplaceSessionID, troupe's): a bundle's lineage
// is the bundle writer's to choose, so it never picks what is deleted.
type importRequest struct {
	Bundle           json.RawMessage `json:"bundle"`
	Replace          bool            `json:"replace"`
	ReplaceSessionID string          `json:"replaceSessionId"`
	Cwd              *string         `json:"cwd"`
}

// importResponse answers an import. Sanitized says what was not taken
// from the bundle as it was; InterruptedRunID and CancelledPrompts what of
// its log was closed rather than resumed.
type importResponse struct {
	SessionID        string           `json:"sessionId"`
	ImportedFrom     string           `json:"importedFromSessionId"`
	Replaced         bool             `json:"replaced"`
	Sanitized        *importSanitized `json:"sanitized,omitempty"`
	InterruptedRunID string           `json:"interruptedRunId,omitempty"`
	CancelledPrompts []string         `json:"cancelledPrompts,omitempty"`
}

// importSanitized is event.ImportSanitized in the API's case.
type importSanitized struct {
	MCPServers     []string `json:"mcpServers,omitempty"`
	ApprovalMode   string   `json:"approvalMode,omitempty"`
	CrashPolicy    string   `json:"crashPolicy,omitempty"`
	AdditionalDirs []string `json:"additionalDirs,omitempty"`
	AllowAlways    int      `json:"allowAlways,omitempty"`
	AgentArgs      []string `json:"agentArgs,omitempty"`
}

func (a *API) importBundle(w http.ResponseWriter, r *http.Request) {
	var req importRequest
	if err := httpjson.DecodeBody(w, r, &req, maxBundle, false); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(req.Bundle) == 0 || string(req.Bundle) == "null" {
		httpjson.Error(w, http.StatusBadRequest, "bundle is required")
		return
	}
	var b bundle
	created, err := decodeBundle(req.Bundle, &b)
	if err != nil {
		httpjson.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid bundle", "details": err.Error()})
		return
	}
	if created.Cwd, err = a.importCwd(req.Cwd, created.Cwd); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	policy := a.importPolicy()
	san := policy.sanitize(&created)
	drafts, err := importDrafts(&b, policy, san)
	if err != nil {
		httpjson.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid bundle", "details": err.Error()})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	id, replace, ok := a.importTarget(ctx, w, req, b.Session.LineageID)
	if !ok {
		return
	}
	if a.cfg.MCPServers != nil {
		// The daemon's own servers (extensions' /mcp/<name>), as a new
		// session gets them: never the bundle's.
		if s := a.cfg.MCPServers(id, nil); len(s) > 0 && string(s) != "[]" && string(s) != "null" {
			created.MCPServers = s
		}
	}
	// The history is flattened: a fork's inherited events are the
	// import's own, so it needs no parent here.
	created.ParentSessionID, created.ForkedFromSeq, created.ForkedFromEntry = "", 0, ""
	// The transformers and the spawning session were the exporting
	// daemon's: an import starts with no chain and no parent.
	created.Transformers, created.ChildOf = nil, ""
	created.LineageID, created.ImportedFrom, created.OriginTransport = b.Session.LineageID, b.Session.SessionID, "import"
	if !isEmpty(san) {
		created.ImportSanitized = san
	}
	if replace {
		a.closing(id)
	}
	res, err := a.cfg.Sessions.Import(ctx, sessions.ImportRequest{ID: id, Replace: replace, Created: created, Events: drafts})
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	if replace && a.cfg.Deleted != nil {
		// The session was replaced, as a delete ends it: what the daemon
		// held of it (its chain) is not the import's.
		a.cfg.Deleted(id)
	}
	out := importResponse{SessionID: id, ImportedFrom: b.Session.SessionID, Replaced: replace,
		InterruptedRunID: res.InterruptedRun, CancelledPrompts: res.CancelledPrompts}
	if !isEmpty(san) {
		out.Sanitized = &importSanitized{MCPServers: san.MCPServers, ApprovalMode: san.ApprovalMode,
			CrashPolicy: san.CrashPolicy, AdditionalDirs: san.AdditionalDirs, AllowAlways: san.AllowAlways, AgentArgs: san.AgentArgs}
	}
	httpjson.WriteJSON(w, http.StatusCreated, out)
}

// importCwd is the imported session's directory: the request's when it
// names one (checked as a new session's), else the bundle's, which must be
// an existing absolute directory here other than the root. A bundle's
// that is not is refused, not replaced: the importer names one instead.
func (a *API) importCwd(requested *string, bundled string) (string, error) {
	if requested != nil {
		if *requested == "" {
			return "", errors.New("cwd may be omitted but not empty")
		}
		return a.checkCwd(*requested)
	}
	cwd, err := workdir.Untrusted("the bundle's cwd", bundled)
	if err != nil {
		return "", fmt.Errorf("%v; name the session's directory with cwd (troupe session import --cwd DIR)", err)
	}
	return cwd, nil
}

// importTarget is the id the import writes: a new one, or the session
// the request names to replace, which must be of the bundle's lineage. It
// answers the request itself when it returns false.
func (a *API) importTarget(ctx context.Context, w http.ResponseWriter, req importRequest, lineageID string) (string, bool, bool) {
	existing, err := a.findLineage(ctx, lineageID)
	if err != nil {
		a.sessionError(w, "", err)
		return "", false, false
	}
	target := req.ReplaceSessionID
	switch {
	case target == "" && req.Replace:
		body := map[string]string{"error": "replace needs replaceSessionId: the session to replace is the importer's to name, not the bundle's"}
		if existing != "" {
			body["existingSessionId"] = existing
		}
		httpjson.WriteJSON(w, http.StatusBadRequest, body)
		return "", false, false
	case target == "" && existing != "":
		httpjson.WriteJSON(w, http.StatusConflict, map[string]string{"error": "bundle already imported", "existingSessionId": existing})
		return "", false, false
	case target == "":
		return sessions.NewID(), false, true
	}
	c, err := a.created(ctx, target)
	if err != nil {
		a.sessionError(w, target, err)
		return "", false, false
	}
	if lineage(target, c) != lineageID {
		httpjson.Error(w, http.StatusConflict, fmt.Sprintf("session %s is not of the bundle's lineage %q: an import replaces only its own lineage's session", target, lineageID))
		return "", false, false
	}
	return target, true, true
}

func decodeBundle(raw json.RawMessage, b *bundle) (event.CreatedPayload, error) {
	if err := json.Unmarshal(raw, b); err != nil {
		return event.CreatedPayload{}, err
	}
	return b.check()
}

// importDrafts are the events an import appends after session.created:
// the bundle's canonical log, its settings clamped to the policy and its
// decisions renumbered to the seqs their events get, or, from a bundle
// without one, its conversation.
func importDrafts(b *bundle, policy importPolicy, san *event.ImportSanitized) ([]event.Draft, error) {
	if b.Troupe == nil {
		msgs := conversationOf(b.History)
		if len(msgs) == 0 {
			return nil, nil
		}
		d, err := event.NewDraft(event.HistoryImported, event.HistoryImportedPayload{Source: "hydra bundle " + b.Session.SessionID, Messages: msgs})
		if err != nil {
			return nil, err
		}
		return []event.Draft{d}, nil
	}
	// The log is session.created, then these in order: each one's seq is
	// known as it is added.
	var r renumber
	drafts := make([]event.Draft, 0, len(b.Troupe.Events))
	for i, e := range b.Troupe.Events {
		if e.Kind == event.TransformerAttached {
			continue
		}
		payload, err := policy.event(e.Kind, e.Payload, san)
		if err != nil {
			return nil, fmt.Errorf("troupe.events[%d]: %v", i, err)
		}
		if e.Kind == event.UpdateTransformed {
			var ok bool
			if payload, ok = r.transformed(e.Seq, payload); !ok {
				continue
			}
		}
		r.add(e.Seq, int64(len(drafts))+2)
		drafts = append(drafts, event.Draft{Kind: e.Kind, Payload: payload})
	}
	return drafts, nil
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
