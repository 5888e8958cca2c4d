package modelconfig

import (
	"fmt"
	"maps"
	"strings"
)

// Environment variables read for provider openai.
const (
	EnvOpenAIBaseURL = "OPENAI_BASE_URL"
	EnvOpenAIAPIKey  = "OPENAI_API_KEY"
)

// Selection is what the caller asked for, usually from flags or a set_model
// command. Empty fields are filled from models.yml and the environment;
// set fields win over both.
type Selection struct {
	Provider  string // --provider
	Model     string // --model; "provider/model" also selects the provider
	BaseURL   string // --base-url
	APIKey    string // --api-key
	MaxTokens int    // --max-tokens; 0 keeps the model's max_output_tokens
}

// Resolved is everything needed to talk to one model.
type Resolved struct {
	Provider string
	BaseURL  string // without trailing slash
	// BaseURLFrom says where BaseURL was set (--base-url, a provider's
	// base_url in models.yml, $OPENAI_BASE_URL, the default): what a hint
	// names when the server there cannot be reached.
	BaseURLFrom string
	APIKey      string // empty for a local server that needs none
	Headers     map[string]string
	Model       Model
	// Listed is false when models.yml does not list the model and Model
	// holds defaults; set_model may want to refuse such a model.
	Listed bool
}

// Resolve combines cfg, sel and env into one endpoint and model; the order
// of precedence is in the package documentation. env is usually os.Getenv;
// nil means an empty environment.
func Resolve(cfg Config, sel Selection, env func(string) string) (Resolved, error) {
	if env == nil {
		env = func(string) string { return "" }
	}
	getenv := func(k string) string { return strings.TrimSpace(env(k)) }
	if sel.MaxTokens < 0 {
		return Resolved{}, incomplete("max tokens %d: must be positive, or 0 for the model's own", sel.MaxTokens)
	}
	sel, err := cfg.providerFromModel(sel)
	if err != nil {
		return Resolved{}, err
	}
	name, err := cfg.chooseProvider(sel, getenv)
	if err != nil {
		return Resolved{}, err
	}
	p, err := cfg.lookupProvider(name)
	if err != nil {
		return Resolved{}, err
	}
	model, listed, err := cfg.chooseModel(p, sel)
	if err != nil {
		return Resolved{}, err
	}
	base, from, err := cfg.baseURL(p, sel, getenv)
	if err != nil {
		return Resolved{}, err
	}
	key, err := cfg.apiKey(p, sel, getenv, base)
	if err != nil {
		return Resolved{}, err
	}
	return Resolved{
		Provider:    p.Name,
		BaseURL:     base,
		BaseURLFrom: from,
		APIKey:      key,
		Headers:     maps.Clone(p.Headers),
		Model:       model,
		Listed:      listed,
	}, nil
}

// providerFromModel picks the provider from --model when --provider is not
// given. Model ids may contain slashes themselves (openrouter's
// anthropic/claude-sonnet-4, openrouter/auto), so an id listed whole wins
// over reading its first segment as a provider: first under the default
// provider, then under the one provider listing it. Only then does
// "provider/model" select the provider.
func (c Config) providerFromModel(sel Selection) (Selection, error) {
	if sel.Provider != "" || sel.Model == "" {
		return sel, nil
	}
	if d, ok := c.provider(c.expandDefault().Provider); ok {
		if _, listed := d.model(sel.Model); listed {
			sel.Provider = d.Name
			return sel, nil
		}
	}
	var listing []string
	for _, p := range c.Providers {
		if _, listed := p.model(sel.Model); listed {
			listing = append(listing, p.Name)
		}
	}
	if len(listing) > 1 {
		return sel, incomplete("model %q is listed under providers %s in %s: pass --provider NAME to choose",
			sel.Model, strings.Join(listing, " and "), c.where())
	}
	if len(listing) == 1 {
		sel.Provider = listing[0]
		return sel, nil
	}
	prefix, rest, ok := strings.Cut(sel.Model, "/")
	if ok && c.known(prefix) {
		sel.Provider, sel.Model = prefix, rest
	}
	return sel, nil
}

func (c Config) chooseProvider(sel Selection, env func(string) string) (string, error) {
	if sel.Provider != "" {
		return sel.Provider, nil
	}
	if d := c.expandDefault(); d.Provider != "" {
		return d.Provider, nil
	}
	if env(EnvOpenAIBaseURL) != "" || env(EnvOpenAIAPIKey) != "" {
		return OpenAI, nil
	}
	// Every way a model can be configured, since this is the first thing a
	// new user meets: a flag, models.yml, or the OpenAI-compatible
	// environment (a local server needs only its URL).
	return "", incomplete("no provider selected: pass --provider NAME (and --model ID), set default.provider in %s (`troupe init` writes a commented one), or set %s (an OpenAI-compatible server, e.g. llama-server's http://127.0.0.1:8080/v1) or %s",
		c.where(), EnvOpenAIBaseURL, EnvOpenAIAPIKey)
}

func (c Config) lookupProvider(name string) (Provider, error) {
	if p, ok := c.provider(name); ok {
		return p, nil
	}
	if name == OpenAI {
		return Provider{Name: OpenAI}, nil
	}
	return Provider{}, &resolveError{ErrUnknownProvider, fmt.Sprintf(
		"provider %q not found in %s: known providers: %s",
		name, c.where(), strings.Join(c.providerNames(), ", "))}
}

func (c Config) chooseModel(p Provider, sel Selection) (Model, bool, error) {
	id := sel.Model
	if d := c.expandDefault(); id == "" && p.Name == d.Provider {
		id = d.Model
	}
	if id == "" && len(p.Models) > 0 {
		id = p.Models[0].ID
	}
	if id == "" {
		return Model{}, false, incomplete(
			"no model selected for provider %q: pass --model ID, set default.model in %s, or list models under providers.%s",
			p.Name, c.where(), p.Name)
	}
	m, listed := p.model(id)
	if !listed {
		m = Model{ID: id}
	}
	m = m.withDefaults()
	if sel.MaxTokens > 0 {
		m.MaxOutputTokens = sel.MaxTokens
	}
	return m, listed, nil
}

func (c Config) baseURL(p Provider, sel Selection, env func(string) string) (url, from string, err error) {
	u, from := strings.TrimSpace(sel.BaseURL), "--base-url"
	if u == "" {
		u, from = p.BaseURL, fmt.Sprintf("providers.%s.base_url in %s", p.Name, c.where())
	}
	if u == "" && p.Name == OpenAI {
		u, from = env(EnvOpenAIBaseURL), EnvOpenAIBaseURL
	}
	if u == "" && p.Name == OpenAI {
		u, from = DefaultOpenAIBaseURL, fmt.Sprintf("the %s provider's default (neither $%s nor base_url in %s is set)", OpenAI, EnvOpenAIBaseURL, c.where())
	}
	if u == "" {
		return "", "", incomplete("provider %q has no base URL: set base_url under providers.%s in %s, or pass --base-url",
			p.Name, p.Name, c.where())
	}
	checked, err := checkBaseURL(u)
	if err != nil {
		return "", "", incomplete("provider %q: base URL from %s: %v", p.Name, from, err)
	}
	return checked, from, nil
}

func (c Config) apiKey(p Provider, sel Selection, env func(string) string, baseURL string) (string, error) {
	if k := strings.TrimSpace(sel.APIKey); k != "" {
		return k, nil
	}
	if p.APIKey != "" {
		return p.APIKey, nil
	}
	if p.APIKeyEnv != "" {
		if k := env(p.APIKeyEnv); k != "" {
			return k, nil
		}
	}
	if p.Name == OpenAI {
		if k := env(EnvOpenAIAPIKey); k != "" {
			return k, nil
		}
	}
	if isLocal(baseURL) {
		return "", nil
	}
	return "", c.missingKey(p)
}

// missingKey names the variable or setting the user should fill in.
func (c Config) missingKey(p Provider) error {
	where := fmt.Sprintf("providers.%s in %s", p.Name, c.where())
	switch {
	case p.APIKeyEnv != "" && p.Name == OpenAI:
		return incomplete("provider %q needs an API key: set %s (named by api_key_env under %s) or %s",
			p.Name, p.APIKeyEnv, where, EnvOpenAIAPIKey)
	case p.APIKeyEnv != "":
		return incomplete("provider %q needs an API key: set %s (named by api_key_env under %s), or pass --api-key",
			p.Name, p.APIKeyEnv, where)
	case p.Name == OpenAI:
		return incomplete("provider %q needs an API key: set %s, or api_key_env under %s",
			p.Name, EnvOpenAIAPIKey, where)
	}
	return incomplete("provider %q needs an API key: set api_key_env (or api_key) under %s, or pass --api-key",
		p.Name, where)
}

func incomplete(format string, args ...any) error {
	return &resolveError{ErrIncomplete, fmt.Sprintf(format, args...)}
}
