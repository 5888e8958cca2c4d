package rest

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/troupehq/troupe/actors/plugins"
	"github.com/troupehq/troupe/transports/httpjson"
)

// pluginRoutes serves /v1/extensions or /v1/transformers (the two are
// the same surface) from one kind's supervisor.
type pluginRoutes struct {
	c    *plugins.Client
	noun string // extension | transformer
	log  *slog.Logger
}

func (a *API) registerPlugins(mux *http.ServeMux, c *plugins.Client, path string) {
	if c == nil {
		return
	}
	p := pluginRoutes{c: c, noun: c.Kind, log: a.cfg.Log}
	mux.HandleFunc("GET "+path, p.list)
	mux.HandleFunc("POST "+path, p.register)
	mux.HandleFunc("GET "+path+"/{name}", p.get)
	mux.HandleFunc("DELETE "+path+"/{name}", p.delete)
	for _, op := range []string{"start", "stop", "restart"} {
		mux.HandleFunc("POST "+path+"/{name}/"+op, func(w http.ResponseWriter, r *http.Request) { p.control(w, r, op) })
	}
}

func (p pluginRoutes) fail(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, plugins.ErrInvalid):
		httpjson.Error(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, plugins.ErrNotFound):
		httpjson.Error(w, http.StatusNotFound, err.Error())
	case errors.Is(err, plugins.ErrConflict):
		httpjson.Error(w, http.StatusConflict, err.Error())
	default:
		httpjson.Internal(w, p.log, err, "kind", p.noun)
	}
}

func (p pluginRoutes) list(w http.ResponseWriter, r *http.Request) {
	infos, err := p.c.List(r.Context())
	if err != nil {
		p.fail(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{p.noun + "s": infos})
}

func (p pluginRoutes) get(w http.ResponseWriter, r *http.Request) {
	in, err := p.c.Get(r.Context(), r.PathValue("name"))
	if err != nil {
		p.fail(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, in)
}

func (p pluginRoutes) register(w http.ResponseWriter, r *http.Request) {
	var s plugins.Spec
	if err := httpjson.DecodeBody(w, r, &s, maxBody, false); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	in, err := p.c.Register(r.Context(), s)
	if err != nil {
		p.fail(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusCreated, in)
}

func (p pluginRoutes) delete(w http.ResponseWriter, r *http.Request) {
	if err := p.c.Delete(r.Context(), r.PathValue("name")); err != nil {
		p.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (p pluginRoutes) control(w http.ResponseWriter, r *http.Request, op string) {
	in, err := p.c.Control(r.Context(), r.PathValue("name"), op)
	if err != nil {
		p.fail(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, in)
}
