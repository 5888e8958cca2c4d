package rest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/workdir"
	"github.com/troupehq/troupe/transports/httpjson"
)

// createRequest is POST /v1/sessions's body. Model ("provider/model") and
// title are troupe's additions, as session/new takes them in its meta.
type createRequest struct {
	Cwd        string          `json:"cwd"`
	AgentID    string          `json:"agentId"`
	AgentArgs  []string        `json:"agentArgs"`
	MCPServers json.RawMessage `json:"mcpServers"`
	Title      string          `json:"title"`
	Model      string          `json:"model"`
}

func (a *API) create(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	if err := httpjson.DecodeBody(w, r, &req, maxBody, true); err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	created, err := a.newSession(req)
	if err != nil {
		httpjson.Error(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	id := sessions.NewID()
	if err := a.open(ctx, id, &created); err != nil {
		a.sessionError(w, id, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusCreated, map[string]string{"sessionId": id, "agentId": cmp.Or(lo.FromPtr(created.Settings.Agent), AgentID), "cwd": created.Cwd})
}

// open creates session id from created, with the daemon's MCP servers
// and transformer chain added.
func (a *API) open(ctx context.Context, id string, created *event.CreatedPayload) error {
	if a.cfg.MCPServers != nil {
		if s := a.cfg.MCPServers(id, created.MCPServers); len(s) > 0 && string(s) != "[]" && string(s) != "null" {
			created.MCPServers = s
		}
	}
	if a.cfg.Chain != nil {
		created.Transformers = a.cfg.Chain()
	}
	if err := a.cfg.Sessions.Create(ctx, id, *created); err != nil {
		return err
	}
	if a.cfg.Opened != nil {
		a.cfg.Opened(id, created.Transformers)
	}
	return nil
}

// newSession validates req into a session.created payload.
func (a *API) newSession(req createRequest) (event.CreatedPayload, error) {
	if err := a.checkAgent(req.AgentID); err != nil {
		return event.CreatedPayload{}, err
	}
	cwd, err := a.checkCwd(req.Cwd)
	if err != nil {
		return event.CreatedPayload{}, err
	}
	created := event.CreatedPayload{Cwd: cwd, Title: req.Title, OriginTransport: "rest", Settings: a.newSettings()}
	if len(req.MCPServers) > 0 && string(req.MCPServers) != "null" {
		created.MCPServers = req.MCPServers
	}
	provider, model, err := a.model(req.Model)
	if err != nil {
		return event.CreatedPayload{}, err
	}
	if model != "" {
		created.Settings.Provider, created.Settings.Model = &provider, &model
	}
	if req.AgentID != "" && req.AgentID != AgentID {
		agent := req.AgentID
		created.Settings.Agent = &agent
		if len(req.AgentArgs) > 0 {
			created.Settings.AgentArgs = req.AgentArgs
		}
	}
	return created, nil
}

// checkAgent accepts troupe's own agent and the ones the catalogue names.
func (a *API) checkAgent(id string) error {
	if id == "" || id == AgentID || (a.cfg.AgentKnown != nil && a.cfg.AgentKnown(id)) {
		return nil
	}
	return fmt.Errorf("agent %q is not installed; this daemon runs %q and the agents its configuration names", id, AgentID)
}

// checkCwd resolves a session directory: the daemon's default when
// omitted, ~ expanded, then workdir's check (absolute, an existing
// directory), the one every door applies.
func (a *API) checkCwd(cwd string) (string, error) {
	if cwd == "" {
		cwd = a.cfg.DefaultCwd
	}
	if strings.HasPrefix(cwd, "~") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cwd %q: %v", cwd, err)
		}
		cwd = filepath.Join(home, cwd[1:])
	}
	return workdir.Cwd(cwd)
}

// model resolves "provider/model" (or a model id alone) against the
// configured models; empty leaves the default.
func (a *API) model(name string) (provider, model string, err error) {
	if name == "" {
		return "", "", nil
	}
	if a.cfg.Models == nil {
		return "", "", fmt.Errorf("model %q: no models are configured", name)
	}
	for _, m := range a.cfg.Models.List() {
		if name == m.Provider+"/"+m.ID || name == m.ID {
			return m.Provider, m.ID, nil
		}
	}
	return "", "", fmt.Errorf("model %q is not configured", name)
}

// newSettings are a new session's settings before the request's own.
func (a *API) newSettings() event.Settings {
	if a.cfg.Defaults != nil {
		return a.cfg.Defaults()
	}
	return a.cfg.Settings
}
