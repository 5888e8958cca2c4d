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
	defaultAgent := AgentID // troupe's own engine, unless config.json names another
	if a.cfg.Agents != nil && a.cfg.Agents.DefaultAgent() != "" {
		defaultAgent = a.cfg.Agents.DefaultAgent()
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{
		"defaultAgent": defaultAgent, "defaultCwd": a.cfg.DefaultCwd,
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

// agents lists the built-in agent with each configured model, then the
// catalogue's agents with their install state.
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
	own := map[string]any{
		"id": AgentID, "name": "troupe", "version": a.cfg.Version,
		"description": "troupe's built-in coding agent", "distributions": []string{"builtin"},
		"installed": "yes", "models": models,
	}
	res := map[string]any{"version": a.cfg.Version, "fetchedAt": a.started.UnixMilli(), "agents": []any{own}}
	if a.cfg.Agents != nil {
		l := a.cfg.Agents.Listing()
		agents := []any{own}
		for _, e := range l.Agents {
			if e.ID != AgentID { // the built-in agent is not shadowed
				agents = append(agents, e)
			}
		}
		res["agents"] = agents
		if l.FetchedAt != nil { // the registry document's, as Hydra answers
			res["version"], res["fetchedAt"] = l.Version, *l.FetchedAt
		}
	}
	httpjson.WriteJSON(w, http.StatusOK, res)
}
