package rest

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/httpjson"
)

type forkRequest struct {
	ForkAt  string  `json:"forkAt"`
	Cwd     *string `json:"cwd"`
	AgentID *string `json:"agentId"`
	// Title names the fork; absent, it keeps the source's.
	Title *string `json:"title"`
}

// forkPoint is where a fork branches: the seq it inherits up to, and the
// message (the run's prompt) it names.
type forkPoint struct {
	seq       int64
	messageID string
}

// findForkPoint reads the source's log for the end of the run forkAt
// names (its prompt, or an assistant message in it), or of the last run
// when forkAt is empty. A session with no finished run forks at its start.
func (a *API) findForkPoint(ctx context.Context, id, forkAt string) (forkPoint, error) {
	last := forkPoint{seq: 1}
	var found *forkPoint
	inRun := map[string]string{} // assistant message id -> run id
	err := a.cfg.Sessions.Load(ctx, id, 1, func(e event.Event) error {
		switch e.Kind {
		case event.MessageCompleted:
			var p event.MessageCompletedPayload
			if e.Decode(&p) == nil {
				inRun[p.MessageID] = p.RunID
			}
		case event.RunEnded:
			var p event.RunEndedPayload
			if e.Decode(&p) != nil {
				return nil
			}
			last = forkPoint{seq: e.Seq, messageID: p.RunID}
			if forkAt != "" && found == nil && (p.RunID == forkAt || inRun[forkAt] == p.RunID) {
				found = &forkPoint{seq: e.Seq, messageID: forkAt}
			}
		}
		return nil
	})
	if err != nil {
		return forkPoint{}, err
	}
	if forkAt == "" {
		return last, nil
	}
	if found == nil {
		return forkPoint{}, fmt.Errorf("forkAt %q names no finished turn of session %s", forkAt, id)
	}
	return *found, nil
}

func (a *API) fork(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var req forkRequest
	if err := httpjson.DecodeBody(w, r, &req, maxBody, true); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if (req.Cwd != nil && *req.Cwd == "") || (req.AgentID != nil && *req.AgentID == "") {
		httpjson.Error(w, http.StatusBadRequest, "cwd and agentId may be omitted but not empty")
		return
	}
	if req.AgentID != nil {
		if err := checkAgent(*req.AgentID); err != nil {
			httpjson.Error(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	src, err := a.cfg.Sessions.Meta(ctx, id)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	cwd := src.Cwd
	if req.Cwd != nil {
		if cwd, err = a.checkCwd(*req.Cwd); err != nil {
			httpjson.Error(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	title := src.Title
	if req.Title != nil {
		title = strings.TrimSpace(*req.Title)
	}
	at, err := a.findForkPoint(ctx, id, req.ForkAt)
	if err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	newID, err := a.cfg.Sessions.Fork(ctx, sessions.ForkRequest{Parent: id, Seq: at.seq, Entry: at.messageID,
		Session: event.CreatedPayload{Cwd: cwd, Title: title, OriginTransport: "rest"}})
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusCreated, map[string]string{
		"sessionId": newID, "lineageId": newID, "forkedFromSessionId": id, "forkedFromMessageId": at.messageID,
	})
}
