package engine

import (
	"path/filepath"
	"sync"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/llamaconfig"
	"github.com/troupehq/troupe/runtime/modelconfig"
)

// Models answers clients' questions about models from the models.yml and
// flags this engine runs on; after a Reload, from the new models.yml.
func (e *Engine) Models() sessions.Models {
	e.modelsOnce.Do(func() { e.models = &catalog{e: e, sel: e.opts.Selection, env: e.opts.Env} })
	return e.models
}

// catalog resolves models as a client names them (provider and id); the
// flags' endpoint and key apply to the default provider only. What it
// resolved is cached until the engine's models.yml changes (Reload).
type catalog struct {
	e   *Engine // for the llama provider's configs and models.yml
	sel modelconfig.Selection
	env func(string) string

	mu       sync.Mutex
	loaded   *modelconfig.Config // the models.yml the rest were resolved from
	provider string              // the default selection, resolved
	model    string
	cache    map[string]modelconfig.Resolved
}

// current is the engine's models.yml and the default selection resolved
// from it, afresh when it was reloaded. c.mu is held.
func (c *catalog) current() modelconfig.Config {
	cfg := c.e.cfg.Load()
	if cfg == c.loaded {
		return *cfg
	}
	c.loaded, c.cache = cfg, map[string]modelconfig.Resolved{}
	c.provider, c.model = "", ""
	if c.sel.Provider == LocalProvider {
		// A config's server may be set up after the catalog: resolved when
		// asked.
		c.provider, c.model = LocalProvider, c.sel.Model
	} else if res, err := modelconfig.Resolve(*cfg, c.sel, c.env); err == nil {
		c.provider, c.model = res.Provider, res.Model.ID
	}
	return *cfg
}

func (c *catalog) Default() (string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.current()
	return c.provider, c.model
}

func (c *catalog) resolve(provider, id string) (modelconfig.Resolved, error) {
	if provider == LocalProvider {
		// Read each time: configs are files a person edits while troupe runs.
		return c.e.resolveSelection(modelconfig.Selection{Provider: provider, Model: id})
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cfg := c.current()
	key := provider + "\x00" + id
	if r, ok := c.cache[key]; ok {
		return r, nil
	}
	sel := modelconfig.Selection{Provider: provider, Model: id}
	if provider == c.provider {
		sel.BaseURL, sel.APIKey = c.sel.BaseURL, c.sel.APIKey
	}
	r, err := modelconfig.Resolve(cfg, sel, c.env)
	if err != nil {
		return r, err
	}
	c.cache[key] = r
	return r, nil
}

func (c *catalog) Model(provider, id string) (sessions.Model, error) {
	r, err := c.resolve(provider, id)
	if err != nil {
		return sessions.Model{}, err
	}
	m := describe(r.Provider, r.API, r.Model)
	m.BaseURL = r.BaseURL
	return m, nil
}

func describe(provider, api string, m modelconfig.Model) sessions.Model {
	p := m.Pricing
	return sessions.Model{
		Provider: provider, API: api, ID: m.ID, Name: m.Name, Thinking: m.Thinking,
		ContextWindow: m.ContextWindow, MaxOutputTokens: m.MaxOutputTokens,
		Pricing: sessions.Pricing{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite},
	}
}

// List is models.yml's models and the catalogs of the built-in providers
// whose credentials are set (modelconfig.Config.Available), after the
// flag-selected one when neither lists it.
func (c *catalog) List() []sessions.Model {
	c.mu.Lock()
	refs := c.current().Available(c.env)
	provider, model := c.provider, c.model
	c.mu.Unlock()
	out := make([]sessions.Model, 0, len(refs)+1)
	listed := false
	for _, r := range refs {
		out = append(out, describe(r.Provider, r.API, r.Model))
		listed = listed || (r.Provider == provider && r.Model.ID == model)
	}
	if !listed && provider != "" && provider != LocalProvider {
		if res, err := c.resolve(provider, model); err == nil {
			out = append([]sessions.Model{describe(provider, res.API, res.Model)}, out...)
		}
	}
	return append(out, c.localModels(provider, model)...)
}

// localModels is a model per llama config, the default's first, when this
// engine runs llama-servers.
func (c *catalog) localModels(provider, model string) []sessions.Model {
	if c.e.localServers() == nil {
		return nil
	}
	entries, err := llamaconfig.Store{Dir: filepath.Join(c.e.opts.Home, "configs")}.List()
	if err != nil {
		return nil
	}
	var out []sessions.Model
	for _, en := range entries {
		res, err := c.resolve(LocalProvider, en.Name)
		if err != nil {
			continue
		}
		m := describe(LocalProvider, res.API, res.Model)
		if provider == LocalProvider && en.Name == model {
			out = append([]sessions.Model{m}, out...)
			continue
		}
		out = append(out, m)
	}
	return out
}

// thinkingOf is provider/id as resolved, or a model without thinking when
// it does not resolve.
func (c *catalog) thinkingOf(provider, id string) modelconfig.Model {
	r, err := c.resolve(provider, id)
	if err != nil {
		return modelconfig.Model{}
	}
	return r.Model
}

func (c *catalog) ClampThinking(provider, id, level string) string {
	return string(c.thinkingOf(provider, id).ClampThinking(modelconfig.ThinkingLevel(level)))
}

func (c *catalog) NextThinking(provider, id, level string) (string, bool) {
	next, ok := c.thinkingOf(provider, id).NextThinking(modelconfig.ThinkingLevel(level))
	return string(next), ok
}

func (c *catalog) Cost(provider, id string, u event.Usage) (sessions.Cost, error) {
	r, err := c.resolve(provider, id)
	if err != nil {
		return sessions.Cost{}, err
	}
	b := r.Model.Cost(modelconfig.Usage{Input: int(u.Input), Output: int(u.Output), CacheRead: int(u.CacheRead), CacheWrite: int(u.CacheWrite)})
	return sessions.Cost{Input: b.Input, Output: b.Output, CacheRead: b.CacheRead, CacheWrite: b.CacheWrite, Total: b.Total}, nil
}
