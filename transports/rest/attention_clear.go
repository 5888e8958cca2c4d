package rest

import (
	"context"
	"net/http"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/httpjson"
)

type clearRequest struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// attentionClear is the user's emergency clear: {source, reason} clears
// one flag, {source} every flag of a source, {} every flag. Open
// permission requests are not flags to clear: they go when answered.
func (a *API) attentionClear(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var req clearRequest
	if err := httpjson.DecodeBody(w, r, &req, maxBody, true); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Reason != "" && req.Source == "" {
		httpjson.Error(w, http.StatusBadRequest, "reason needs its source")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	if _, err := a.cfg.Sessions.Meta(ctx, id); err != nil {
		a.sessionError(w, id, err)
		return
	}
	if _, err := a.cfg.Sessions.SetAttention(ctx, id, sessions.AttentionChange{Source: req.Source, Reason: req.Reason, Clear: true}); err != nil {
		a.sessionError(w, id, err)
		return
	}
	flags, err := a.sessionFlags(ctx, id)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"flags": flags})
}
