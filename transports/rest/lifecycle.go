package rest

import (
	"context"
	"net/http"
	"strings"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/httpjson"
)

// kill: 202 a live session is stopped (now cold), 204 it was not live here,
// 409 another process hosts it.
func (a *API) kill(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	id := r.PathValue("id")
	if _, err := a.cfg.Sessions.Meta(ctx, id); err != nil {
		a.sessionError(w, id, err)
		return
	}
	live, err := a.liveHere(ctx, id)
	if err != nil {
		a.sessionError(w, id, err)
		return
	}
	if live {
		a.closing(id)
		if err := a.cfg.Sessions.Kill(ctx, id); err != nil {
			a.sessionError(w, id, err)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if err := a.cfg.Sessions.HeldElsewhere(ctx, id); err != nil {
		a.sessionError(w, id, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type patchRequest struct {
	Title *string `json:"title"`
	Regen bool    `json:"regen"`
}

// patch retitles a session, or with regen has its model write a title in
// the background (202; the title arrives as session_info_update).
func (a *API) patch(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var req patchRequest
	if err := httpjson.DecodeBody(w, r, &req, maxBody, false); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	switch {
	case req.Regen && req.Title != nil:
		httpjson.Error(w, http.StatusBadRequest, "title and regen are mutually exclusive")
		return
	case req.Regen:
		a.patchRegen(w, r, id)
		return
	case req.Title == nil:
		httpjson.Error(w, http.StatusBadRequest, "title is required")
		return
	}
	title := strings.TrimSpace(*req.Title)
	if title == "" {
		httpjson.Error(w, http.StatusBadRequest, "title is empty")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	// The store says whether it exists: a request to an unknown id would
	// start an actor only to be told so.
	if _, err := a.cfg.Sessions.Meta(ctx, id); err != nil {
		a.sessionError(w, id, err)
		return
	}
	if _, err := a.cfg.Sessions.SetTitle(ctx, id, title); err != nil {
		a.sessionError(w, id, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *API) delete(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	id := r.PathValue("id")
	if _, ok := a.hostable(ctx, w, id); !ok {
		return
	}
	a.closing(id)
	if err := a.cfg.Sessions.Delete(ctx, id); err != nil {
		a.sessionError(w, id, err)
		return
	}
	if a.cfg.Deleted != nil {
		a.cfg.Deleted(id)
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *API) closing(id string) {
	if a.cfg.Closing != nil {
		a.cfg.Closing(id)
	}
}

func (a *API) patchRegen(w http.ResponseWriter, r *http.Request, id string) {
	if a.cfg.Titler == nil {
		httpjson.Error(w, http.StatusBadRequest, "regen needs a model; this daemon has none to write titles")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	m, ok := a.hostable(ctx, w, id)
	if !ok {
		return
	}
	a.regen(id, metaModel{provider: m.Provider, model: m.Model})
	w.WriteHeader(http.StatusAccepted)
}

// hostable is session id's meta when it exists and no other process holds
// it, so this daemon may act on it (delete, compact, retitle); otherwise
// the error is answered and ok is false.
func (a *API) hostable(ctx context.Context, w http.ResponseWriter, id string) (m sessions.Meta, ok bool) {
	m, err := a.cfg.Sessions.Meta(ctx, id)
	if err == nil {
		err = a.cfg.Sessions.HeldElsewhere(ctx, id)
	}
	if err != nil {
		a.sessionError(w, id, err)
		return m, false
	}
	return m, true
}
