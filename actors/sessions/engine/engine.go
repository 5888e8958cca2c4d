package engine

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/agentcatalog"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/llm/openai"
	"github.com/troupehq/troupe/runtime/llm/providers"
	"github.com/troupehq/troupe/runtime/modelconfig"
	"github.com/troupehq/troupe/runtime/skills"
	"github.com/troupehq/troupe/runtime/tools"
)

// Options are what a command knows before any session exists.
type Options struct {
	Home string
	// Selection comes from flags (--provider, --model, --base-url, key,
	// --max-tokens); a session's own provider and model settings win.
	Selection modelconfig.Selection
	Thinking  string
	Env       func(string) string // default os.Getenv
	// Mode is the default approval mode; DenyUnapproved is for protocols
	// that cannot ask.
	Mode           string
	DenyUnapproved bool
	MaxSteps       int
	AutoRetry      bool
	// RetryDelay is the wait before the first automatic retry, doubled
	// for each next one; 0 is the run's default (2 s).
	RetryDelay   time.Duration
	SystemPrompt string
	// ExtraTools are offered besides the built-ins (tests, embedders).
	ExtraTools []tools.Tool
	// Agents is the daemon's agent catalogue (its registry and installs
	// included); without one, the home's configuration is read at each
	// agent start.
	Agents *agentcatalog.Catalog
}

// Engine is a built engine with its caches.
type Engine struct {
	opts    Options
	cfg     atomic.Pointer[modelconfig.Config] // models.yml; Reload swaps it
	catalog skills.Catalog
	ids     atomic.Int64
	prefix  string

	modelsOnce sync.Once
	models     *catalog

	local local

	mu        sync.Mutex
	providers map[string]llm.Provider // by endpoint (providerKey)
	styles    map[string]string       // base URL -> native | text, from /props
}

// New loads models.yml and the skills catalog from the home. A broken
// models.yml is an error now, not at the first prompt.
func New(opts Options) (*Engine, error) {
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	cfg, err := modelconfig.Load(filepath.Join(opts.Home, modelconfig.FileName))
	if err != nil {
		return nil, err
	}
	cat, err := skills.Load(filepath.Join(opts.Home, "skills"))
	if err != nil {
		return nil, fmt.Errorf("load skills: %w", err)
	}
	e := &Engine{
		opts: opts, catalog: cat,
		prefix:    fmt.Sprintf("%x", time.Now().UnixNano()&0xffffffff),
		providers: map[string]llm.Provider{}, styles: map[string]string{},
	}
	e.cfg.Store(&cfg)
	return e, nil
}

// config is models.yml as last loaded.
func (e *Engine) config() modelconfig.Config { return *e.cfg.Load() }

// Check resolves the default selection now, so a command can report a
// missing or wrong configuration before it starts.
func (e *Engine) Check() error {
	_, err := e.resolveSelection(e.opts.Selection)
	return err
}

// Session is the engine sessions use.
func (e *Engine) Session() *session.Engine {
	return &session.Engine{
		Resolve:        e.resolve,
		Tools:          e.tools,
		SystemPrompt:   e.systemPrompt,
		DefaultMode:    e.opts.Mode,
		DenyUnapproved: e.opts.DenyUnapproved,
		MaxSteps:       e.opts.MaxSteps,
		Retry:          run.Retry{Enabled: e.opts.AutoRetry, BaseDelay: e.opts.RetryDelay},
		SpillDir:       filepath.Join(e.opts.Home, "spill"),
		NewID:          e.newID,
		Agents:         e.agent,
	}
}

func (e *Engine) newID(prefix string) string {
	return fmt.Sprintf("%s-%s%d", prefix, e.prefix, e.ids.Add(1))
}

// CheckSettings resolves the model a session with these settings runs on,
// so a command can report a wrong configuration before it records anything.
func (e *Engine) CheckSettings(set event.Settings) (modelconfig.Resolved, error) {
	res, err := e.resolveSelection(e.selection(set))
	if err != nil {
		return res, err
	}
	_, err = e.thinking(set)
	return res, err
}

// DefaultSettings are what a session a long-lived command creates records
// when its creator names none: the command's approval mode, thinking level
// and retry, crash policy resume, and the provider and model as resolved.
// When none resolves the error says why and the provider and model are
// left unset (the session's prompts fail until one resolves).
func (e *Engine) DefaultSettings() (event.Settings, error) {
	resume := event.CrashResume
	s := event.Settings{ApprovalMode: lo.ToPtr(e.opts.Mode), CrashPolicy: &resume, AutoRetry: lo.ToPtr(e.opts.AutoRetry)}
	if e.opts.Thinking != "" {
		s.ThinkingLevel = lo.ToPtr(e.opts.Thinking)
	}
	res, err := e.CheckSettings(s)
	if err != nil {
		return s, err
	}
	s.Provider, s.Model = lo.ToPtr(res.Provider), lo.ToPtr(res.Model.ID)
	return s, nil
}

// selection is the command's selection with the session's provider,
// model and base URL over it: a session resumes where it ran. The
// command's --base-url and --api-key belong to the command's provider: a
// session switched to another (set_model) reaches that one where its own
// configuration says, as the model lists describe it.
func (e *Engine) selection(set event.Settings) modelconfig.Selection {
	sel := e.opts.Selection
	if p := lo.FromPtr(set.Provider); p != "" && p != sel.Provider {
		if def, _ := e.Models().Default(); p != def {
			sel.BaseURL, sel.APIKey = "", ""
		}
	}
	sel.Provider = cmp.Or(lo.FromPtr(set.Provider), sel.Provider)
	sel.Model = cmp.Or(lo.FromPtr(set.Model), sel.Model)
	sel.BaseURL = cmp.Or(lo.FromPtr(set.BaseURL), sel.BaseURL)
	return sel
}

// thinking is the session's thinking level, else the command's.
func (e *Engine) thinking(set event.Settings) (modelconfig.ThinkingLevel, error) {
	level := lo.FromPtrOr(set.ThinkingLevel, e.opts.Thinking)
	if level == "" {
		return modelconfig.ThinkingOff, nil
	}
	return modelconfig.ParseThinkingLevel(level)
}

func (e *Engine) resolve(ctx context.Context, st session.State) (run.Model, error) {
	res, err := e.resolveSelection(e.selection(st.Settings))
	if err != nil {
		return run.Model{}, err
	}
	var provider llm.Provider
	if res.Provider == LocalProvider {
		// The server starts now, if it has not: its /props settles the
		// tool style, and the first request finds it ready.
		lp := &localProvider{e: e, res: res, config: res.Model.ID}
		if res, err = lp.endpoint(ctx); err != nil {
			return run.Model{}, err
		}
		provider = lp
	}
	built, err := e.provider(ctx, res)
	if err != nil {
		return run.Model{}, err
	}
	if provider == nil {
		provider = reach{Provider: built, res: res, models: cmp.Or(e.config().Path, filepath.Join(e.opts.Home, modelconfig.FileName))}
	}
	thinking, err := e.thinking(st.Settings)
	if err != nil {
		return run.Model{}, err
	}
	model := res.Model
	return run.Model{
		Provider: provider, ID: model.ID, MaxTokens: model.MaxOutputTokens,
		Thinking:      llm.ThinkingLevel(model.ClampThinking(thinking)),
		ToolStyle:     e.toolStyle(ctx, built, res),
		ContextWindow: model.ContextWindow,
		Cost: func(u event.Usage) float64 {
			return model.Cost(modelconfig.Usage{Input: int(u.Input), Output: int(u.Output), CacheRead: int(u.CacheRead), CacheWrite: int(u.CacheWrite)}).Total
		},
	}, nil
}

// provider is the llm.Provider for res's endpoint, built once through
// runtime/llm/providers and shared by every session on the same endpoint.
func (e *Engine) provider(ctx context.Context, res modelconfig.Resolved) (llm.Provider, error) {
	ep := providers.Endpoint{
		API: cmp.Or(res.API, providers.APIOpenAI), BaseURL: res.BaseURL, APIKey: res.APIKey, Headers: res.Headers,
		Thinking: res.Model.Thinking, Region: res.Region, Project: res.Project, Env: e.opts.Env,
	}
	key := providerKey(res.Provider, ep)
	e.mu.Lock()
	p, ok := e.providers[key]
	e.mu.Unlock()
	if ok {
		return p, nil
	}
	// Built outside the lock: a cloud credential chain may read files or
	// ask a metadata server. Two first requests may both build; the first
	// stored is kept. The provider outlives the run that asked for it, and
	// a credential chain may keep the context to refresh tokens with, so
	// it gets the run's values without its cancellation.
	p, err := providers.New(context.WithoutCancel(ctx), ep)
	if err != nil {
		return nil, fmt.Errorf("provider %s: %w", res.Provider, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if first, ok := e.providers[key]; ok {
		return first, nil
	}
	e.providers[key] = p
	return p, nil
}

// providerKey tells endpoints apart: everything a provider is built from
// but the environment, which is the engine's own; the provider name stands
// for its headers.
func providerKey(name string, ep providers.Endpoint) string {
	return strings.Join([]string{name, ep.API, ep.BaseURL, ep.APIKey, ep.Region, ep.Project, strconv.FormatBool(ep.Thinking)}, "\x00")
}

// toolStyle settles auto: the native APIs call tools natively; an
// OpenAI-compatible server is native unless it says its chat template
// cannot call tools (llama-server /props), then text. Servers without
// /props (remote APIs) are native.
func (e *Engine) toolStyle(ctx context.Context, p llm.Provider, res modelconfig.Resolved) string {
	switch res.Model.ToolStyle {
	case modelconfig.ToolStyleNative:
		return event.ToolStyleNative
	case modelconfig.ToolStyleText:
		return event.ToolStyleText
	}
	props, ok := p.(interface {
		Props(context.Context) (*openai.Props, error)
	})
	if cmp.Or(res.API, providers.APIOpenAI) != providers.APIOpenAI || !ok {
		return event.ToolStyleNative
	}
	e.mu.Lock()
	style, ok := e.styles[res.BaseURL]
	e.mu.Unlock()
	if ok {
		return style
	}
	style = event.ToolStyleNative
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if got, err := props.Props(pctx); err == nil && got.SupportsToolCalls != nil && !*got.SupportsToolCalls {
		style = event.ToolStyleText
	}
	e.mu.Lock()
	e.styles[res.BaseURL] = style
	e.mu.Unlock()
	return style
}

func (e *Engine) tools(session.State) []tools.Tool {
	out := append(tools.Builtins(), e.opts.ExtraTools...)
	if len(e.catalog.Skills) > 0 {
		out = append(out, skillTool{catalog: e.catalog})
	}
	return out
}

func (e *Engine) systemPrompt(st session.State) string {
	prompt := e.opts.SystemPrompt
	if prompt == "" {
		prompt = defaultSystemPrompt(st.Cwd)
	}
	if cat := e.catalog.Prompt(); cat != "" {
		prompt += "\n\n" + cat
	}
	return prompt
}

func defaultSystemPrompt(cwd string) string {
	return "You are a coding agent. You work in the directory " + cwd +
		" using the tools you are given: read files before changing them, make focused edits, run commands to check your work, and answer concisely."
}
