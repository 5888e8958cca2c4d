package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/troupehq/troupe/runtime/llamaconfig"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/llm/providers"
	"github.com/troupehq/troupe/runtime/modelconfig"
)

// LocalProvider is the provider of troupe's own llama-servers: with
// --provider llama, the model is a config name in $TROUPE_HOME/configs,
// whose server starts on the first request and is shared by every session
// of that config.
const LocalProvider = "llama"

// LocalServers starts (or finds started) a config's llama-server and
// returns its API base URL; it waits while the server loads or restarts.
type LocalServers interface {
	URL(ctx context.Context, config string) (string, error)
}

// local holds the LocalServers set once the runtime runs its supervisor:
// the engine is built before the runtime.
type local struct {
	mu      sync.Mutex
	servers LocalServers
}

// SetLocalServers lets sessions use --provider llama; without it, that
// provider is refused.
func (e *Engine) SetLocalServers(s LocalServers) {
	e.local.mu.Lock()
	defer e.local.mu.Unlock()
	e.local.servers = s
}

func (e *Engine) localServers() LocalServers {
	e.local.mu.Lock()
	defer e.local.mu.Unlock()
	return e.local.servers
}

// resolveSelection is modelconfig.Resolve, plus the llama provider.
func (e *Engine) resolveSelection(sel modelconfig.Selection) (modelconfig.Resolved, error) {
	if sel.Provider != LocalProvider {
		return modelconfig.Resolve(e.config(), sel, e.opts.Env)
	}
	if e.localServers() == nil {
		return modelconfig.Resolved{}, errors.New("provider llama: this command runs no llama-servers")
	}
	if sel.Model == "" {
		return modelconfig.Resolved{}, errors.New("provider llama: --model names a config in $TROUPE_HOME/configs")
	}
	cfg, err := llamaconfig.Store{Dir: filepath.Join(e.opts.Home, "configs")}.Read(sel.Model)
	if err != nil {
		return modelconfig.Resolved{}, fmt.Errorf("provider llama: %w", err)
	}
	style := modelconfig.ToolStyleAuto
	if cfg.ToolStyle != "" {
		style = modelconfig.ToolStyle(cfg.ToolStyle)
	}
	m := modelconfig.Model{ID: sel.Model, Name: sel.Model, ToolStyle: style, MaxOutputTokens: sel.MaxTokens}
	if cfg.Ctx > 0 {
		m.ContextWindow = cfg.Ctx / max(cfg.Slots, 1) // what one session's slot holds
	}
	return modelconfig.Resolved{Provider: LocalProvider, API: providers.APIOpenAI, Model: m, Listed: true}, nil
}

// localProvider streams from its config's server, asking for its URL at
// each request: after a crash the server restarts on another port, and
// the request waits for it (the turn's auto-retry sends it again).
type localProvider struct {
	e      *Engine
	res    modelconfig.Resolved
	config string
}

func (p *localProvider) Stream(ctx context.Context, req llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	res, err := p.endpoint(ctx)
	if err != nil {
		return nil, err
	}
	c, err := p.e.provider(ctx, res)
	if err != nil {
		return nil, err
	}
	return c.Stream(ctx, req, sink)
}

func (p *localProvider) endpoint(ctx context.Context) (modelconfig.Resolved, error) {
	s := p.e.localServers()
	if s == nil {
		return p.res, errors.New("provider llama: no llama-servers in this command")
	}
	url, err := s.URL(ctx, p.config)
	if err != nil {
		return p.res, fmt.Errorf("llama-server %s: %w", p.config, err)
	}
	res := p.res
	res.BaseURL = url
	return res, nil
}
