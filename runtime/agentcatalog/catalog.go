package agentcatalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// The errors Lookup and Install answer. ErrUnknown: no source names the
// id. ErrNotInstalled: the agent is known but must be installed first
// (POST /v1/agents/:id/install), or has nothing to install on this
// platform; the daemon answers both -32005. ErrNoRegistry: the home
// configures no registry document.
var (
	ErrUnknown      = errors.New("unknown agent")
	ErrNotInstalled = errors.New("agent not installed")
	ErrNoRegistry   = errors.New("no agent registry configured (set registry.url in config.json)")
)

// Agent is one agent the daemon can start.
type Agent struct {
	ID          string
	Name        string
	Description string
	Version     string
	// Source says where the entry comes from: "config" (the home's own
	// configuration) or "registry".
	Source string
	// Launch is how to start it; empty while the agent is not installed
	// (Installed "no").
	Launch Launch
	// Installed is Hydra's install state: "yes" (startable now), "no" (an
	// npx or binary agent not installed yet) or "lazy" (uvx, which
	// resolves the package when it starts).
	Installed string
	// Distributions are the distribution kinds the entry has (npx,
	// binary, uvx; exec for a command the configuration names).
	Distributions []string
	// ExtendsChain is the agent's id and the ids it extends, most
	// specific first.
	ExtendsChain []string
	// Onboarding is the registry's hints for a first run (a login
	// command, a URL), as the document has them.
	Onboarding json.RawMessage
}

// Launch is how the agent's process is started: the daemon speaks ACP over
// its stdin and stdout. A session's agentArgs, when given, replace Args
// (Hydra's rule, so an editor that repeats the agent's subcommand does not
// double it).
type Launch struct {
	Command string
	Args    []string
	Env     map[string]string
}

// Options are Open's; the zero value is Load's.
type Options struct {
	// HTTPClient fetches the registry and binary archives; nil is a
	// client with a 10-minute timeout.
	HTTPClient *http.Client
	// Now is the clock the registry's ttlHours is measured with; nil is
	// time.Now.
	Now func() time.Time
	// Log hears what the catalogue drops (a local agent whose extends
	// does not resolve); nil is slog.Default.
	Log *slog.Logger
}

// Catalog is the agents one home's configuration and registry name. It is
// safe for concurrent use: the routes and the sessions share one.
type Catalog struct {
	home   string
	cfg    config
	client *http.Client
	now    func() time.Time
	log    *slog.Logger

	mu     sync.RWMutex
	reg    *cachedRegistry // nil: none configured, or none fetched yet
	regErr error           // the last failure to get a document

	installs sync.Mutex
	busy     map[string]*sync.Mutex // one install per install dir
}

// registryTimeout bounds the fetch Load makes at the daemon's start.
const registryTimeout = 30 * time.Second

// Load reads home's configuration (config.json's "agents",
// "agentOverrides", "registry", "npmRegistry" and "defaultAgent", and
// config.yml's "agents") and, when a registry URL is configured, the
// registry document: the cached copy while it is fresh (or pinned), else
// fetched. A registry that cannot be read does not fail Load (the local
// agents still serve); RegistryError says why.
func Load(home string) (*Catalog, error) {
	return Open(context.Background(), home, Options{})
}

// Open is Load with options.
func Open(ctx context.Context, home string, o Options) (*Catalog, error) {
	cfg, err := readConfig(home)
	if err != nil {
		return nil, err
	}
	c := &Catalog{home: home, cfg: cfg, client: o.HTTPClient, now: o.Now, log: o.Log, busy: map[string]*sync.Mutex{}}
	if c.client == nil {
		c.client = &http.Client{Timeout: 10 * time.Minute}
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	// An id names install directories: one that is not a single safe path
	// segment is left out, the rest of the configuration kept.
	for id := range c.cfg.agents {
		if !validID(id) {
			c.log.Warn("agent left out of the catalogue: an id is letters, digits, '.', '_' and '-', starting with a letter or digit", "agent", id)
			delete(c.cfg.agents, id)
		}
	}
	if cfg.registry.URL == "" {
		return c, nil
	}
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	c.loadRegistry(ctx)
	return c, nil
}

// loadRegistry takes the cache when pinned or fresh, else fetches (and
// falls back to a stale cache when the fetch fails), as Hydra does.
func (c *Catalog) loadRegistry(ctx context.Context) {
	cached := readCache(c.home)
	ttl := time.Duration(c.cfg.ttlHours() * float64(time.Hour))
	if cached != nil && (c.cfg.registry.Pinned || c.now().Sub(cached.fetchedAt) < ttl) {
		c.reg = cached
		return
	}
	fresh, err := c.fetch(ctx)
	if err != nil {
		c.reg, c.regErr = cached, err
		return
	}
	c.reg = fresh
}

func (c *Catalog) fetch(ctx context.Context) (*cachedRegistry, error) {
	fresh, err := fetchDocument(ctx, c.client, c.cfg.registry.URL, c.now())
	if err != nil {
		return nil, err
	}
	if err := writeCache(c.home, fresh); err != nil {
		return nil, err
	}
	return fresh, nil
}

// Refresh fetches the registry document again (pinned or not, as Hydra's
// refresh does) and answers its version and how many agents it lists.
func (c *Catalog) Refresh(ctx context.Context) (version string, agents int, err error) {
	if c.cfg.registry.URL == "" {
		return "", 0, ErrNoRegistry
	}
	fresh, err := c.fetch(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.regErr = err
		return "", 0, err
	}
	c.reg, c.regErr = fresh, nil
	return fresh.doc.Version, len(fresh.doc.Agents), nil
}

// Registry is the registry document as fetched (GET /v1/registry).
func (c *Catalog) Registry() (json.RawMessage, error) {
	if c.cfg.registry.URL == "" {
		return nil, ErrNoRegistry
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.reg == nil {
		return nil, fmt.Errorf("registry unavailable: %w", c.regErr)
	}
	return c.reg.raw, nil
}

// RegistryError is why the registry document could not be fetched the
// last time it was tried (nil: it was, or none is configured).
func (c *Catalog) RegistryError() error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.regErr
}

// DefaultAgent is config.json's defaultAgent; "" when unset (the daemon's
// own agent is then the default).
func (c *Catalog) DefaultAgent() string { return c.cfg.defaultAgent }

// NPMRegistry is config.json's npmRegistry ("" is npm's own default).
func (c *Catalog) NPMRegistry() string { return c.cfg.npmRegistry }

// Lookup resolves id to the agent to start: the home's own agents first
// (they shadow the registry's), then the registry's by id, by npm package
// name, by an implied "-acp" suffix and by a unique prefix, as Hydra
// resolves. An agent that must be installed first answers ErrNotInstalled.
func (c *Catalog) Lookup(id string) (Agent, error) {
	e, err := c.resolve(id)
	if err != nil {
		return Agent{}, err
	}
	a := c.agent(e)
	switch a.Installed {
	case stateYes, stateLazy:
		return a, nil
	}
	return a, fmt.Errorf("%w: %s: install it first (POST /v1/agents/%s/install)", ErrNotInstalled, e.id, e.id)
}

// List is every agent, sorted by id: the home's own and the registry's
// that no own agent shadows. A local agent whose extends does not resolve
// is left out (and logged).
func (c *Catalog) List() []Agent {
	var out []Agent
	seen := map[string]bool{}
	for _, id := range slices.Sorted(maps.Keys(c.cfg.agents)) {
		e, err := c.resolve(id)
		if err != nil {
			c.log.Warn("agent left out of the catalogue", "agent", id, "error", err)
			continue
		}
		seen[id] = true
		out = append(out, c.agent(e))
	}
	for _, ra := range c.document().Agents {
		if seen[ra.ID] || !validID(ra.ID) {
			continue
		}
		seen[ra.ID] = true
		out = append(out, c.agent(c.fromRegistry(ra)))
	}
	slices.SortFunc(out, func(a, b Agent) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// document is the registry's, or an empty one.
func (c *Catalog) document() document {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.reg == nil {
		return document{}
	}
	return c.reg.doc
}

// agent is e as the callers see it, with its install state and launch.
func (c *Catalog) agent(e entry) Agent {
	a := Agent{ID: e.id, Name: e.name, Description: e.description, Version: e.version, Source: e.source,
		Distributions: e.dist.kinds(), ExtendsChain: slices.Clone(e.chain), Onboarding: e.onboarding}
	a.Launch, a.Installed = c.launch(e)
	// The caller's to change (agentArgs replace Args): never the document's.
	a.Launch.Args, a.Launch.Env = slices.Clone(a.Launch.Args), maps.Clone(a.Launch.Env)
	return a
}

// idPattern is an agent id: a single path segment, since ids name
// install directories (and a registry's come from the network).
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

func validID(id string) bool { return idPattern().MatchString(id) && !strings.Contains(id, "..") }
