package rest

import (
	"context"
	"errors"
	"net/http"

	"github.com/troupehq/troupe/runtime/agentcatalog"
	"github.com/troupehq/troupe/transports/httpjson"
)

// installAgent installs agent id (POST /v1/agents/{id}/install), telling
// every ACP client its progress, and answers Hydra's shape: agentId,
// version, distribution, installed, command (or a message when there is
// nothing to install). The request waits for the install, as Hydra's
// does; the client leaving or the daemon stopping ends it.
func (a *API) installAgent(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if id == AgentID {
		httpjson.WriteJSON(w, http.StatusOK, agentcatalog.Installed{AgentID: AgentID, Version: a.cfg.Version,
			Distribution: "builtin", Installed: true, Message: "troupe's own agent is built in."})
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(a.ctx, cancel)
	defer stop()
	progress := func(p agentcatalog.Progress) {
		if a.cfg.Notify != nil {
			a.cfg.Notify(agentcatalog.InstallProgressMethod, p)
		}
	}
	res, err := a.cfg.Agents.Install(ctx, id, progress)
	switch {
	case errors.Is(err, agentcatalog.ErrUnknown):
		httpjson.Error(w, http.StatusNotFound, "agent "+id+" not found: "+err.Error())
	case err != nil:
		// The reason is the operator's to act on (npm's output, a
		// checksum, an unsafe archive), so it is the answer's text.
		a.cfg.Log.Warn("agent install failed", "agent", id, "error", err)
		httpjson.Error(w, http.StatusInternalServerError, err.Error())
	default:
		httpjson.WriteJSON(w, http.StatusOK, res)
	}
}

// registry answers the registry document as fetched (GET /v1/registry);
// 404 when the home configures none, 503 when it could not be read.
func (a *API) registry(w http.ResponseWriter, _ *http.Request) {
	doc, err := a.cfg.Agents.Registry()
	switch {
	case errors.Is(err, agentcatalog.ErrNoRegistry):
		httpjson.Error(w, http.StatusNotFound, err.Error())
	case err != nil:
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(doc)
	}
}

// refreshRegistry fetches the registry document again (POST
// /v1/registry/refresh) and answers {version, agentCount}; 404 without a
// registry, 502 when the fetch failed (the previous document still serves).
func (a *API) refreshRegistry(w http.ResponseWriter, r *http.Request) {
	version, n, err := a.cfg.Agents.Refresh(r.Context())
	switch {
	case errors.Is(err, agentcatalog.ErrNoRegistry):
		httpjson.Error(w, http.StatusNotFound, err.Error())
	case err != nil:
		httpjson.Error(w, http.StatusBadGateway, err.Error())
	default:
		httpjson.WriteJSON(w, http.StatusOK, map[string]any{"version": version, "agentCount": n})
	}
}
