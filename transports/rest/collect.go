package rest

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/httpjson"
)

// collectRequest is `hydra sessions collect`'s body.
type collectRequest struct {
	// MaxAgeDays: only sessions last updated longer ago; 0 any age.
	MaxAgeDays float64 `json:"maxAgeDays"`
	// Limit bounds the deletions of one call (default 1000); the rest are
	// deferred.
	Limit int `json:"limit"`
	// Selection: unpromoted (the default) collects every session never
	// made interactive, undecided ones too; explicit only those marked
	// not interactive.
	Selection string `json:"selection"`
}

// collectResult is what the CLI prints.
type collectResult struct {
	Considered       int    `json:"considered"`
	Deleted          int    `json:"deleted"`
	Failed           int    `json:"failed"`
	Deferred         int    `json:"deferred"`
	OldestLastUsedMs *int64 `json:"oldestLastUsedMs,omitempty"`
}

// collectLimit is a call's default bound on deletions.
const collectLimit = 1000

// collect deletes cold sessions that never became interactive, oldest
// first, as Hydra's `sessions collect` asks: interactive ones are never
// touched, nor a session a live process hosts. A deletion that fails (a
// session with forks, one another process took meanwhile) is counted
// failed and logged.
func (a *API) collect(w http.ResponseWriter, r *http.Request) {
	var req collectRequest
	if err := httpjson.DecodeBody(w, r, &req, maxBody, true); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Limit <= 0 {
		req.Limit = collectLimit
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*requestTimeout)
	defer cancel()
	metas, err := a.cfg.Sessions.List(ctx, "")
	if err != nil {
		a.sessionError(w, "", err)
		return
	}
	running, err := a.cfg.Sessions.Running(ctx)
	if err != nil {
		a.sessionError(w, "", err)
		return
	}
	cutoff := time.Now().Add(-time.Duration(req.MaxAgeDays * float64(24*time.Hour)))
	var picked []sessions.Meta
	for _, m := range metas {
		if running[m.ID] || !collectable(m, req.Selection) || (req.MaxAgeDays > 0 && m.UpdatedAt.After(cutoff)) {
			continue
		}
		picked = append(picked, m)
	}
	slices.SortFunc(picked, func(x, y sessions.Meta) int { return cmp.Or(x.UpdatedAt.Compare(y.UpdatedAt), cmp.Compare(x.ID, y.ID)) })
	out := collectResult{Considered: len(picked)}
	if len(picked) > 0 {
		out.OldestLastUsedMs = new(picked[0].UpdatedAt.UnixMilli())
	}
	now := picked[:min(len(picked), req.Limit)]
	out.Deferred = len(picked) - len(now)
	for _, m := range now {
		if err := a.cfg.Sessions.Delete(ctx, m.ID); err != nil {
			out.Failed++
			a.cfg.Log.Warn("collect: session not deleted", "session", m.ID, "error", err)
			continue
		}
		out.Deleted++
		if a.cfg.Deleted != nil {
			a.cfg.Deleted(m.ID)
		}
	}
	httpjson.WriteJSON(w, http.StatusOK, out)
}

// collectable says whether m is selected: never made interactive
// (unpromoted), or marked not interactive (explicit).
func collectable(m sessions.Meta, selection string) bool {
	if selection == "explicit" {
		return m.Interactive != nil && !*m.Interactive
	}
	return m.Interactive == nil || !*m.Interactive
}
