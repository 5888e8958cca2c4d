package rest

import (
	"net/http"

	"github.com/troupehq/troupe/transports/httpjson"
)

func (a *API) defaultModel() string {
	if a.cfg.Models == nil {
		return ""
	}
	p, m := a.cfg.Models.Default()
	if m == "" {
		return ""
	}
	return p + "/" + m
}

func (a *API) config(w http.ResponseWriter, _ *http.Request) {
	models := map[string]string{}
	if m := a.defaultModel(); m != "" {
		models[AgentID] = m
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{
		"defaultAgent": AgentID, "defaultCwd": a.cfg.DefaultCwd,
		"defaultModels": models, "defaultTransformers": append([]string{}, a.cfg.DefaultTransformers...),
	})
}

type agentModel struct {
	ID            string `json:"id"` // provider/model
	Name          string `json:"name"`
	ContextWindow int    `json:"contextWindow,omitempty"`
	Thinking      bool   `json:"thinking"`
	Default       bool   `json:"default,omitempty"`
}

// agents lists the one built-in agent with each configured model.
func (a *API) agents(w http.ResponseWriter, _ *http.Request) {
	models := []agentModel{}
	if a.cfg.Models != nil {
		def := a.defaultModel()
		for _, m := range a.cfg.Models.List() {
			id := m.Provider + "/" + m.ID
			models = append(models, agentModel{ID: id, Name: m.Name, ContextWindow: m.ContextWindow,
				Thinking: m.Thinking, Default: id == def})
		}
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{
		"version": a.cfg.Version, "fetchedAt": a.started.UnixMilli(),
		"agents": []map[string]any{{
			"id": AgentID, "name": "troupe", "version": a.cfg.Version,
			"description": "troupe's built-in coding agent", "distributions": []string{"builtin"},
			"installed": "yes", "models": models,
		}},
	})
}
