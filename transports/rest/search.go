package rest

import (
	"context"
	"net/http"
	"strings"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/httpjson"
)

type searchRequest struct {
	Q          string   `json:"q"`
	SessionIDs []string `json:"sessionIds"`
}

type searchMatch struct {
	SessionID string `json:"sessionId"`
	MessageID string `json:"messageId"`
	Snippet   string `json:"snippet"`
}

// maxSearchBody bounds a search's body: its sessionIds allowlist may name
// every session of a long-lived install (50,000 ids are about 1.5 MB).
const maxSearchBody = 8 << 20

// search finds text in prompts and replies, across sessions or in the
// listed ones.
func (a *API) search(w http.ResponseWriter, r *http.Request) {
	var req searchRequest
	if err := httpjson.DecodeBody(w, r, &req, maxSearchBody, false); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if strings.TrimSpace(req.Q) == "" {
		httpjson.Error(w, http.StatusBadRequest, "q is required")
		return
	}
	if req.SessionIDs != nil && len(req.SessionIDs) == 0 {
		httpjson.WriteJSON(w, http.StatusOK, map[string]any{"matches": []searchMatch{}})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	found, err := a.cfg.Sessions.Search(ctx, req.Q, req.SessionIDs)
	if err != nil {
		a.sessionError(w, "", err)
		return
	}
	out := lo.Map(found, func(m sessions.Match, _ int) searchMatch {
		return searchMatch{SessionID: m.SessionID, MessageID: m.MessageID, Snippet: m.Snippet}
	})
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"matches": out})
}
