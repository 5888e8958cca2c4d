package agentcatalog

import "encoding/json"

// Entry is one agent of GET /v1/agents and hydra-acp/agents/list, in
// Hydra's shape (its CLI's `hydra agents` and its TUI read these fields).
type Entry struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Version       string          `json:"version"`
	Description   string          `json:"description,omitempty"`
	Distributions []string        `json:"distributions"`
	Installed     string          `json:"installed"`
	Source        string          `json:"source"` // local | registry
	ExtendsChain  []string        `json:"extendsChain,omitempty"`
	Onboarding    json.RawMessage `json:"onboarding,omitempty"`
}

// Listing is the catalogue as those routes answer it: the registry
// document's version ("local-only" without one) and when it was fetched
// (Unix ms; nil when never).
type Listing struct {
	Version   string  `json:"version"`
	FetchedAt *int64  `json:"fetchedAt"`
	Agents    []Entry `json:"agents"`
}

// Listing is every agent (List) as the routes answer them.
func (c *Catalog) Listing() Listing {
	l := Listing{Version: "local-only", Agents: []Entry{}}
	c.mu.RLock()
	if c.reg != nil {
		l.Version = c.reg.doc.Version
		l.FetchedAt = ptr(c.reg.fetchedAt.UnixMilli())
	}
	c.mu.RUnlock()
	for _, a := range c.List() {
		src := "registry"
		if a.Source == "config" {
			src = "local"
		}
		e := Entry{ID: a.ID, Name: a.Name, Version: a.Version, Description: a.Description,
			Distributions: a.Distributions, Installed: a.Installed, Source: src, Onboarding: a.Onboarding}
		if e.Distributions == nil {
			e.Distributions = []string{}
		}
		if len(a.ExtendsChain) > 1 {
			e.ExtendsChain = a.ExtendsChain
		}
		l.Agents = append(l.Agents, e)
	}
	return l
}
