package rest

import (
	"cmp"
	"context"
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
	// A fork runs on its source's agent (the settings it inherits),
	// unless it names another the catalogue knows, as ACP's fork does.
	var settings event.Settings
	if req.AgentID != nil {
		if err := a.checkAgent(*req.AgentID); err != nil {
			httpjson.Error(w, http.StatusBadRequest, err.Error())
			return
		}
		settings.Agent = req.AgentID
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	src, err := a.cfg.Sessions.Meta(ctx, id)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	if req.AgentID != nil && *req.AgentID != cmp.Or(src.Agent, AgentID) {
		settings.AgentArgs = []string{} // the source agent's arguments are not another's
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
	at, err := a.cfg.Sessions.ForkPoint(ctx, id, req.ForkAt)
	if err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	newID, err := a.cfg.Sessions.Fork(ctx, sessions.ForkRequest{Parent: id, Seq: at.Seq, Entry: at.MessageID,
		Session: event.CreatedPayload{Cwd: cwd, Title: title, Settings: settings, OriginTransport: "rest"}})
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusCreated, map[string]string{
		"sessionId": newID, "lineageId": newID, "forkedFromSessionId": id, "forkedFromMessageId": at.MessageID,
	})
}
