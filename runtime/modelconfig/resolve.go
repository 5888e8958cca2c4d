package modelconfig

import (
	"fmt"
	"maps"
	"strings"

	"github.com/troupehq/troupe/runtime/llm/providers"
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
	// API is the wire format the model is spoken to with
	// (runtime/llm/providers' API names).
	API     string
	BaseURL string // without trailing slash; empty for bedrock and vertex without one: their region implies it
	// BaseURLFrom says where BaseURL was set (--base-url, a provider's
	// base_url in models.yml, $OPENAI_BASE_URL, the default): what a hint
	// names when the server there cannot be reached.
	BaseURLFrom string
	APIKey      string // empty for a local server that needs none, and the cloud platforms
	// APIKeyFrom says where APIKey was found (--api-key, $VAR, an entry
	// of models.yml): what a 401 names.
	APIKeyFrom string
	Headers    map[string]string
	// Region and Project place bedrock and vertex requests.
	Region  string
	Project string
	Model   Model
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
	base, from, err := cfg.baseURL(p, sel, getenv)
	if err != nil {
		return Resolved{}, err
	}
	model, listed, err := cfg.chooseModel(p, sel, base)
	if err != nil {
		return Resolved{}, err
	}
	api := p.api(model)
	key, keyFrom, err := cfg.apiKey(p, api, sel, getenv, base)
	if err != nil {
		return Resolved{}, err
	}
	region, project, err := cfg.placement(p, api, getenv)
	if err != nil {
		return Resolved{}, err
	}
	return Resolved{
		Provider:    p.Name,
		API:         api,
		BaseURL:     base,
		BaseURLFrom: from,
		APIKey:      key,
		APIKeyFrom:  keyFrom,
		Headers:     maps.Clone(p.Headers),
		Region:      region,
		Project:     project,
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
		return p.merged(), nil
	}
	if _, ok := builtinProvider(name); ok {
		return Provider{Name: name}.merged(), nil
	}
	return Provider{}, &resolveError{ErrUnknownProvider, fmt.Sprintf(
		"provider %q not found in %s: known providers: %s",
		name, c.where(), strings.Join(c.providerNames(), ", "))}
}

func (c Config) chooseModel(p Provider, sel Selection, base string) (Model, bool, error) {
	id := sel.Model
	if d := c.expandDefault(); id == "" && p.Name == d.Provider {
		id = d.Model
	}
	if id == "" {
		id = c.firstModel(p, base)
	}
	if id == "" {
		return Model{}, false, incomplete(
			"no model selected for provider %q: pass --model ID, set default.model in %s, or list models under providers.%s",
			p.Name, c.where(), p.Name)
	}
	m, listed := p.model(id)
	if b, ok := catalogOf(p); ok && !listed {
		m, listed = b.catalogModel(id)
	}
	if !listed {
		m = Model{ID: id}
	}
	m = m.withDefaults()
	if sel.MaxTokens > 0 {
		m.MaxOutputTokens = sel.MaxTokens
	}
	return m, listed, nil
}

// firstModel is the model a provider picks when none is named: the first
// models.yml lists under it, else its catalog's default (catalogOf),
// except for a compatible server in openai's place (its own base URL),
// whose models the catalog does not know.
func (c Config) firstModel(p Provider, base string) string {
	if f, ok := c.provider(p.Name); ok && len(f.Models) > 0 {
		return f.Models[0].ID
	}
	b, ok := catalogOf(p)
	if !ok || len(b.models) == 0 {
		return ""
	}
	if !isNative(p.api(Model{})) && base != b.defaultBase {
		return ""
	}
	return b.models[0].ID
}

func (c Config) baseURL(p Provider, sel Selection, env func(string) string) (url, from string, err error) {
	u, from := strings.TrimSpace(sel.BaseURL), "--base-url"
	if u == "" {
		u, from = p.BaseURL, fmt.Sprintf("providers.%s.base_url in %s", p.Name, c.where())
	}
	b, isBuiltin := builtinProvider(p.Name)
	if u == "" && isBuiltin {
		u, from = first(env, b.baseEnv...)
	}
	if u == "" {
		api := p.api(Model{})
		switch def := defaultBaseURL(p, api); {
		case def != "" && len(b.baseEnv) > 0:
			u, from = def, fmt.Sprintf("the %s provider's default (neither %s nor base_url in %s is set)", p.Name, envList(b.baseEnv, "$"), c.where())
		case def != "":
			u, from = def, fmt.Sprintf("the %s API's default (base_url under providers.%s in %s is not set)", api, p.Name, c.where())
		case api == providers.APIBedrock || api == providers.APIVertex:
			return "", fmt.Sprintf("the %s region", api), nil
		}
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

// defaultBaseURL is the public endpoint of a built-in provider, or of a
// native API under another name; none for an OpenAI-compatible server.
func defaultBaseURL(p Provider, api string) string {
	if b, ok := builtinProvider(p.Name); ok && b.defaultBase != "" {
		return b.defaultBase
	}
	switch api {
	case providers.APIOpenAIResponses:
		return DefaultOpenAIBaseURL
	case providers.APIAnthropic:
		return DefaultAnthropicBaseURL
	case providers.APIGoogle:
		return DefaultGeminiBaseURL
	}
	return ""
}

func (c Config) apiKey(p Provider, api string, sel Selection, env func(string) string, baseURL string) (key, from string, err error) {
	at := fmt.Sprintf("providers.%s in %s", p.Name, c.where())
	if k := strings.TrimSpace(sel.APIKey); k != "" {
		return k, "--api-key", nil
	}
	if p.APIKey != "" {
		return p.APIKey, "api_key under " + at, nil
	}
	if p.APIKeyEnv != "" {
		if k := env(p.APIKeyEnv); k != "" {
			return k, fmt.Sprintf("$%s (api_key_env under %s)", p.APIKeyEnv, at), nil
		}
	}
	b, isBuiltin := builtinProvider(p.Name)
	if isBuiltin {
		if k, name := first(env, b.keyEnv...); k != "" {
			return k, "$" + name, nil
		}
	}
	// The cloud platforms sign requests with their credential chains.
	if api == providers.APIBedrock || api == providers.APIVertex || isLocal(baseURL) {
		return "", "", nil
	}
	return "", "", c.missingKey(p, b.keyEnv)
}

// missingKey names the variable or setting the user should fill in; a
// built-in provider's variable comes first, in the words of the aionrs
// spec ("ANTHROPIC_API_KEY not set").
func (c Config) missingKey(p Provider, keyEnv []string) error {
	where := fmt.Sprintf("providers.%s in %s", p.Name, c.where())
	switch {
	case p.APIKeyEnv != "" && len(keyEnv) > 0:
		return incomplete("provider %q needs an API key: set %s (named by api_key_env under %s) or %s",
			p.Name, p.APIKeyEnv, where, envList(keyEnv, ""))
	case p.APIKeyEnv != "":
		return incomplete("provider %q needs an API key: set %s (named by api_key_env under %s), or pass --api-key",
			p.Name, p.APIKeyEnv, where)
	case len(keyEnv) > 0:
		return incomplete("%s not set: provider %q needs an API key from %s, api_key_env under %s, or --api-key",
			keyEnv[0], p.Name, envList(keyEnv, "$"), where)
	}
	return incomplete("provider %q needs an API key: set api_key_env (or api_key) under %s, or pass --api-key",
		p.Name, where)
}

// placement is the region (and project) a bedrock or vertex request goes
// to: models.yml's, else the platform's variables.
func (c Config) placement(p Provider, api string, env func(string) string) (region, project string, err error) {
	where := fmt.Sprintf("providers.%s in %s", p.Name, c.where())
	pick := func(set string, names []string, what string) (string, error) {
		if set != "" {
			return set, nil
		}
		if v, _ := first(env, names...); v != "" {
			return v, nil
		}
		return "", incomplete("%s not set: provider %q needs %s: set %s, or %s under %s",
			names[0], p.Name, what, envList(names, ""), strings.Fields(what)[len(strings.Fields(what))-1], where)
	}
	switch api {
	case providers.APIBedrock:
		region, err = pick(p.Region, bedrockRegionEnv, "an AWS region")
		return region, "", err
	case providers.APIVertex:
		if project, err = pick(p.Project, vertexProjectEnv, "a Google Cloud project"); err != nil {
			return "", "", err
		}
		region, err = pick(p.Region, vertexRegionEnv, "a Google Cloud region")
		return region, project, err
	}
	return "", "", nil
}

// envList is "A or B" (each with prefix), for messages.
func envList(names []string, prefix string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return strings.Join(out, " or ")
}

func incomplete(format string, args ...any) error {
	return &resolveError{ErrIncomplete, fmt.Sprintf(format, args...)}
}
