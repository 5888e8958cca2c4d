package rest

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/httpjson"
)

type searchRequest struct {
	Q            string   `json:"q"`
	SessionIDs   []string `json:"sessionIds"`
	SnippetWidth int      `json:"snippetWidth"`
}

// searchAnswer is the reference's matches beside the results Hydra's
// clients read (the TUI's ^F, `hydra session changes`).
type searchAnswer struct {
	Query     string        `json:"query"`
	Truncated bool          `json:"truncated"`
	Results   []searchHit   `json:"results"`
	Matches   []searchMatch `json:"matches"`
}

// searchHit is one session's hits.
type searchHit struct {
	SessionID    string          `json:"sessionId"`
	Title        string          `json:"title,omitempty"`
	Cwd          string          `json:"cwd"`
	Status       string          `json:"status"`
	UpdatedAt    time.Time       `json:"updatedAt"`
	TotalMatches int             `json:"totalMatches"`
	Snippets     []searchSnippet `json:"snippets"`
}

type searchSnippet struct {
	Kind       string `json:"kind"`
	ToolName   string `json:"toolName,omitempty"`
	Text       string `json:"text"`
	RecordedAt int64  `json:"recordedAt"` // Unix ms
}

// maxSearchSessions bounds the sessions one search answers (then
// truncated), as Hydra's does.
const maxSearchSessions = 200

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
	out := searchAnswer{Query: req.Q, Results: []searchHit{}, Matches: []searchMatch{}}
	if req.SessionIDs != nil && len(req.SessionIDs) == 0 {
		httpjson.WriteJSON(w, http.StatusOK, out)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	found, err := a.cfg.Sessions.Search(ctx, req.Q, req.SessionIDs)
	if err != nil {
		a.sessionError(w, "", err)
		return
	}
	out.Matches = lo.Map(found, func(m sessions.Match, _ int) searchMatch {
		return searchMatch{SessionID: m.SessionID, MessageID: m.MessageID, Snippet: m.Snippet}
	})
	if out.Results, out.Truncated, err = a.searchHits(ctx, req); err != nil {
		a.sessionError(w, "", err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, out)
}

// searchHits is the query's hits (Hydra's syntax: sessions.ParseQuery),
// a session each, most recently updated first, at most maxSearchSessions.
func (a *API) searchHits(ctx context.Context, req searchRequest) ([]searchHit, bool, error) {
	hits, err := a.cfg.Sessions.SearchHits(ctx, sessions.ParseQuery(req.Q), req.SessionIDs, sessions.DefaultMaxSnippets, req.SnippetWidth)
	if err != nil || len(hits) == 0 {
		return []searchHit{}, false, err
	}
	metas, err := a.hitMetas(ctx, hits)
	if err != nil {
		return nil, false, err
	}
	running, err := a.cfg.Sessions.Running(ctx)
	if err != nil {
		return nil, false, err
	}
	out := []searchHit{}
	for _, m := range metas {
		h := hits[m.ID]
		if h == nil {
			continue
		}
		if len(out) == maxSearchSessions {
			return out, true, nil
		}
		status := StatusCold
		if running[m.ID] && m.Status != "failed" {
			status = StatusWarm
		}
		out = append(out, searchHit{SessionID: m.ID, Title: m.Title, Cwd: m.Cwd, Status: status, UpdatedAt: m.UpdatedAt,
			TotalMatches: h.TotalMatches, Snippets: lo.Map(h.Snippets, func(s sessions.Snippet, _ int) searchSnippet {
				return searchSnippet{Kind: s.Kind, ToolName: s.ToolName, Text: s.Text, RecordedAt: s.RecordedAt.UnixMilli()}
			})})
	}
	return out, false, nil
}

// maxHitsByID is the most hit sessions whose rows are read one by one;
// past it, the list of every session is read instead.
const maxHitsByID = 1000

// hitMetas are the rows of the sessions hit, in the list's order.
func (a *API) hitMetas(ctx context.Context, hits map[string]*sessions.Hits) ([]sessions.Meta, error) {
	if len(hits) > maxHitsByID {
		return a.cfg.Sessions.List(ctx, "")
	}
	out := make([]sessions.Meta, 0, len(hits))
	for id := range hits {
		m, err := a.cfg.Sessions.Meta(ctx, id)
		if errors.Is(err, sessions.ErrNotFound) {
			continue // deleted since the search read it
		}
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	slices.SortFunc(out, sessions.ListOrder)
	return out, nil
}
