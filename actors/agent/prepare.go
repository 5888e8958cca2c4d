package agent

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/servers"
	"github.com/troupehq/troupe/runtime/agentpkg"
	"github.com/troupehq/troupe/runtime/llamaconfig"
	"github.com/troupehq/troupe/runtime/llm/providers"
	"github.com/troupehq/troupe/runtime/modelconfig"
	"github.com/troupehq/troupe/runtime/skills"
)

// serverStart bounds starting a config's llama-server for a run.
const serverStart = 15 * time.Minute

// Host is what runs need from the process: its home, and the servers
// supervisor that starts a manifest's backend config.
type Host struct {
	Home    string
	Root    *actor.RootContext
	Servers *actor.PID // nil: a config backend is refused
	// Runs is the spawner (actors/spawner) runs start under: the
	// guardian's agent-runs.
	Runs *actor.PID
}

// Prepare resolves a run: the package (a folder, an agent.yaml or an
// installed name), its backend (url, else config, else models.yml and
// $OPENAI_BASE_URL as troupe run resolves them; ${VAR} in url and api_key
// expanded), its session id and the skills in
// $TROUPE_HOME/skills.
func (h Host) Prepare(ctx context.Context, path string, args []string, cwd string) (Options, error) {
	dir, m, err := agentpkg.Resolve(h.Home, path)
	if err != nil {
		return Options{}, err
	}
	if _, err := os.Stat(filepath.Join(dir, m.Entry)); err != nil {
		return Options{}, fmt.Errorf("agent %s: entry %s: %w", m.Name, m.Entry, err)
	}
	if cwd, err = filepath.Abs(cwd); err != nil {
		return Options{}, fmt.Errorf("working directory: %w", err)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return Options{}, fmt.Errorf("cwd %s is not a directory", cwd)
	}
	opts := Options{Dir: dir, Manifest: m, Args: args, Cwd: cwd, Model: m.Backend.Model}
	if m.Mode == agentpkg.ModeAgentic || needsLLM(dir, m) {
		b, err := h.backend(ctx, m)
		if err != nil {
			return Options{}, err
		}
		opts.Provider, err = providers.New(ctx, b.endpoint)
		if err != nil {
			return Options{}, fmt.Errorf("agent %s backend: %w", m.Name, err)
		}
		if opts.Model == "" {
			opts.Model = b.model
		}
	}
	if opts.Model == "" {
		opts.Model = m.Backend.Config
	}
	if opts.Model == "" {
		opts.Model = "default"
	}
	if opts.SessionID, err = h.session(m); err != nil {
		return Options{}, err
	}
	cat, err := skills.Load(filepath.Join(h.Home, "skills"))
	if err == nil {
		opts.Skills = cat
	}
	return opts, nil
}

// needsLLM: a script that calls ask_llm gets a model too, when it has a
// backend.
func needsLLM(dir string, m agentpkg.Manifest) bool {
	if m.Backend.URL == "" && m.Backend.Config == "" {
		return false
	}
	src, err := os.ReadFile(filepath.Join(dir, m.Entry))
	return err == nil && strings.Contains(string(src), "ask_llm")
}

// backendOf is where a run's model calls go: the endpoint and the model
// id when the manifest names none.
type backendOf struct {
	endpoint providers.Endpoint
	model    string
}

// compatible is an OpenAI-compatible server's endpoint (a manifest's url,
// a llama-server).
func compatible(url, key string) backendOf {
	return backendOf{endpoint: providers.Endpoint{API: providers.APIOpenAI, BaseURL: url, APIKey: key}}
}

// backend is the manifest's backend.url, else its llama-server
// backend.config (both OpenAI-compatible), else the model `troupe run`
// would use: models.yml's (its default provider, or the one listing
// backend.model) and the OpenAI-compatible environment ($OPENAI_BASE_URL,
// $OPENAI_API_KEY), as runtime/modelconfig resolves them, on the API it
// resolves to. The manifest's api_key wins.
func (h Host) backend(ctx context.Context, m agentpkg.Manifest) (backendOf, error) {
	key := os.ExpandEnv(m.Backend.APIKey)
	if u := os.ExpandEnv(m.Backend.URL); u != "" {
		return compatible(u, key), nil
	}
	if name := m.Backend.Config; name != "" {
		u, err := h.startConfig(ctx, name)
		return compatible(u, key), err
	}
	path := filepath.Join(h.Home, modelconfig.FileName)
	cfg, err := modelconfig.Load(path)
	if err != nil {
		return backendOf{}, fmt.Errorf("agent %s: %w", m.Name, err)
	}
	if !configured(cfg, m.Backend.Model) {
		return backendOf{}, fmt.Errorf("agent %s has no model backend: set backend.url or backend.config in agent.yaml, "+
			"default.provider in %s, or $%s (an OpenAI-compatible server, e.g. llama-server's http://127.0.0.1:8080/v1)",
			m.Name, path, modelconfig.EnvOpenAIBaseURL)
	}
	sel := modelconfig.Selection{Model: m.Backend.Model}
	if sel.Model == "" && cfg.Default.Model == "" {
		sel.Model = "default" // a single-model server (llama-server) answers to any name
	}
	res, err := modelconfig.Resolve(cfg, sel, os.Getenv)
	if err != nil {
		return backendOf{}, fmt.Errorf("agent %s: the model from %s and the environment: %w", m.Name, path, err)
	}
	return backendOf{model: res.Model.ID, endpoint: providers.Endpoint{
		API: res.API, BaseURL: res.BaseURL, APIKey: cmp.Or(key, res.APIKey), Headers: res.Headers,
		Thinking: res.Model.Thinking, Region: res.Region, Project: res.Project, Env: os.Getenv,
	}}, nil
}

// configured says whether anything outside the manifest names a model to
// resolve: a default provider or model in models.yml, a provider listing
// the manifest's model, or the OpenAI-compatible environment.
func configured(cfg modelconfig.Config, model string) bool {
	if cfg.Default.Provider != "" || cfg.Default.Model != "" ||
		os.Getenv(modelconfig.EnvOpenAIBaseURL) != "" || os.Getenv(modelconfig.EnvOpenAIAPIKey) != "" {
		return true
	}
	for _, r := range cfg.Models() {
		if model != "" && r.Model.ID == model {
			return true
		}
	}
	return false
}

// startConfig starts (or finds) config name's llama-server.
func (h Host) startConfig(ctx context.Context, name string) (string, error) {
	if h.Servers == nil {
		return "", fmt.Errorf("backend config %s: this command runs no llama-servers", name)
	}
	cfg, err := llamaconfig.Store{Dir: filepath.Join(h.Home, "configs")}.Read(name)
	if err != nil {
		return "", fmt.Errorf("backend config %s: %w", name, err)
	}
	f := h.Root.RequestFuture(h.Servers, &servers.Start{Name: name, Config: cfg}, serverStart)
	got := make(chan struct{})
	var res any
	go func() { res, err = f.Result(); close(got) }()
	select {
	case <-got:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if err != nil {
		return "", fmt.Errorf("start server %s: %w", name, err)
	}
	st := res.(*servers.Started)
	if st.Err != nil {
		return "", st.Err
	}
	return fmt.Sprintf("http://%s:%d/v1", st.Info.Host, st.Info.Port), nil
}

// session is the X-Session-ID of the run: none (stateless), a new one
// (fresh), or the agent's own kept in $TROUPE_HOME/agents/.sessions (resume).
func (h Host) session(m agentpkg.Manifest) (string, error) {
	switch m.Backend.Session {
	case agentpkg.SessionFresh:
		return newSessionID(m.Name), nil
	case agentpkg.SessionResume:
		path := filepath.Join(agentpkg.Dir(h.Home), ".sessions", m.Name)
		if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			return strings.TrimSpace(string(b)), nil
		} else if !errors.Is(err, os.ErrNotExist) && err != nil {
			return "", fmt.Errorf("agent session: %w", err)
		}
		id := newSessionID(m.Name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", fmt.Errorf("agent session: %w", err)
		}
		if err := os.WriteFile(path, []byte(id+"\n"), 0o600); err != nil {
			return "", fmt.Errorf("agent session: %w", err)
		}
		return id, nil
	}
	return "", nil
}

func newSessionID(name string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails on Linux
	return "agent-" + name + "-" + hex.EncodeToString(b)
}
