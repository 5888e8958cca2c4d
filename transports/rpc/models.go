package rpc

import (
	"fmt"
	"sync"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/modelconfig"
)

// models answers what the protocol asks about models from models.yml and
// the flags, the way the engine resolves them.
type models struct {
	cfg      modelconfig.Config
	sel      modelconfig.Selection
	env      func(string) string
	provider string // the default selection, resolved
	model    string

	mu    sync.Mutex
	cache map[string]modelconfig.Resolved
}

func newModels(cfg Config) *models {
	m := &models{cfg: cfg.Models, sel: cfg.Selection, env: cfg.Env, cache: map[string]modelconfig.Resolved{}}
	if res, err := modelconfig.Resolve(cfg.Models, cfg.Selection, cfg.Env); err == nil {
		m.provider, m.model = res.Provider, res.Model.ID
	}
	return m
}

func (m *models) current(set event.Settings) (string, string) {
	p, id := m.provider, m.model
	if set.Provider != nil && *set.Provider != "" {
		p = *set.Provider
	}
	if set.Model != nil && *set.Model != "" {
		id = *set.Model
	}
	return p, id
}

func (m *models) resolve(provider, id string) (modelconfig.Resolved, error) {
	key := provider + "\x00" + id
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.cache[key]; ok {
		return r, nil
	}
	sel := modelconfig.Selection{Provider: provider, Model: id}
	if provider == m.provider {
		sel.BaseURL, sel.APIKey = m.sel.BaseURL, m.sel.APIKey
	}
	r, err := modelconfig.Resolve(m.cfg, sel, m.env)
	if err != nil {
		return r, err
	}
	m.cache[key] = r
	return r, nil
}

func (m *models) price(provider, id string, u event.Usage) costJSON {
	r, err := m.resolve(provider, id)
	if err != nil {
		return costJSON{Total: u.Cost}
	}
	c := r.Model.Cost(modelconfig.Usage{Input: int(u.Input), Output: int(u.Output), CacheRead: int(u.CacheRead), CacheWrite: int(u.CacheWrite)})
	return costJSON{Input: c.Input, Output: c.Output, CacheRead: c.CacheRead, CacheWrite: c.CacheWrite, Total: c.Total}
}

// modelJSON is the protocol's Model object.
type modelJSON struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	API           string   `json:"api"`
	Provider      string   `json:"provider"`
	BaseURL       string   `json:"baseUrl"`
	Reasoning     bool     `json:"reasoning"`
	Input         []string `json:"input"`
	ContextWindow int      `json:"contextWindow"`
	MaxTokens     int      `json:"maxTokens"`
	Cost          struct {
		Input      float64 `json:"input"`
		Output     float64 `json:"output"`
		CacheRead  float64 `json:"cacheRead"`
		CacheWrite float64 `json:"cacheWrite"`
	} `json:"cost"`
}

func (m *models) object(provider, id string) (*modelJSON, error) {
	r, err := m.resolve(provider, id)
	if err != nil {
		return nil, err
	}
	o := &modelJSON{ID: r.Model.ID, Name: r.Model.Name, API: api, Provider: r.Provider, BaseURL: r.BaseURL,
		Reasoning: r.Model.Thinking, Input: []string{"text", "image"}, ContextWindow: r.Model.ContextWindow, MaxTokens: r.Model.MaxOutputTokens}
	if o.Name == "" {
		o.Name = o.ID
	}
	o.Cost.Input, o.Cost.Output, o.Cost.CacheRead, o.Cost.CacheWrite = r.Model.Pricing.Input, r.Model.Pricing.Output, r.Model.Pricing.CacheRead, r.Model.Pricing.CacheWrite
	return o, nil
}

// available lists models.yml's models, and the flag-selected model first
// when models.yml does not list it.
func (m *models) available() []modelconfig.ModelRef {
	refs := m.cfg.Models()
	for _, r := range refs {
		if r.Provider == m.provider && r.Model.ID == m.model {
			return refs
		}
	}
	if m.provider == "" {
		return refs
	}
	if res, err := m.resolve(m.provider, m.model); err == nil {
		refs = append([]modelconfig.ModelRef{{Provider: m.provider, Model: res.Model}}, refs...)
	}
	return refs
}

// find returns the available model provider/id.
func (m *models) find(provider, id string) (modelconfig.ModelRef, error) {
	for _, r := range m.available() {
		if r.Provider == provider && r.Model.ID == id {
			return r, nil
		}
	}
	return modelconfig.ModelRef{}, fmt.Errorf("Model not found: %s/%s", provider, id)
}

// next is cycle_model's choice after provider/id; ok is false with one model.
func (m *models) next(provider, id string) (modelconfig.ModelRef, bool) {
	refs := m.available()
	if len(refs) < 2 {
		return modelconfig.ModelRef{}, false
	}
	for i, r := range refs {
		if r.Provider == provider && r.Model.ID == id {
			return refs[(i+1)%len(refs)], true
		}
	}
	return refs[0], true
}

func (m *models) thinking(set event.Settings, def string) (modelconfig.ThinkingLevel, modelconfig.Model) {
	level := def
	if set.ThinkingLevel != nil {
		level = *set.ThinkingLevel
	}
	if level == "" {
		level = string(modelconfig.ThinkingOff)
	}
	p, id := m.current(set)
	r, err := m.resolve(p, id)
	if err != nil {
		return modelconfig.ThinkingLevel(level), modelconfig.Model{}
	}
	return r.Model.ClampThinking(modelconfig.ThinkingLevel(level)), r.Model
}
