package modelconfig

// FileName is the name of the models file inside $TROUPE_HOME.
const FileName = "models.yml"

// DefaultContextWindow is assumed for a model models.yml does not list.
// 128000 is what current hosted coding models offer at least; a local model
// with a smaller window should be listed with its real context_window so
// compaction starts in time.
const DefaultContextWindow = 128000

// DefaultOpenAIBaseURL is used for provider openai when neither models.yml
// nor OPENAI_BASE_URL names one.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// The built-in providers: each exists without a models.yml entry, speaks
// the API of the same name, reads its own environment variables and brings
// a catalog of current models (builtin.go).
const (
	OpenAI    = "openai"
	Anthropic = "anthropic"
	Google    = "google"
	Bedrock   = "bedrock"
	Vertex    = "vertex"
)

// Config is a parsed models.yml. The zero value is an empty file.
type Config struct {
	// Path is where the config was loaded from; error messages name it.
	Path      string
	Default   Default
	Providers []Provider // in file order
}

// Default is the selection used when the caller gives none.
type Default struct {
	Provider string `yaml:"provider"`
	Model    string `yaml:"model"`
}

// Provider is one endpoint and the models it serves.
type Provider struct {
	Name string `yaml:"-"` // the key under providers:
	// API is the wire format (runtime/llm/providers' API names); empty is
	// the built-in provider's of the same name, else openai.
	API       string            `yaml:"api"`
	BaseURL   string            `yaml:"base_url"`
	APIKey    string            `yaml:"api_key"`
	APIKeyEnv string            `yaml:"api_key_env"` // name of the variable holding the key
	Headers   map[string]string `yaml:"headers"`
	// Region and Project place bedrock (AWS region) and vertex (Google
	// Cloud region and project) requests; the environment fills them
	// when left out.
	Region  string  `yaml:"region"`
	Project string  `yaml:"project"`
	Models  []Model `yaml:"models"`
}

// Model is what troupe knows about one model of a provider.
type Model struct {
	ID   string `yaml:"id"`
	Name string `yaml:"name"` // defaults to ID
	// API overrides the provider's for this model: an OpenAI model that
	// needs the Responses API says openai-responses.
	API             string        `yaml:"api"`
	ContextWindow   int           `yaml:"context_window"`
	MaxOutputTokens int           `yaml:"max_output_tokens"` // 0: let the server decide
	ToolStyle       ToolStyle     `yaml:"tool_style"`
	Thinking        bool          `yaml:"thinking"`
	MaxThinking     ThinkingLevel `yaml:"max_thinking"` // defaults to high when Thinking
	Pricing         Pricing       `yaml:"cost"`
}

// Pricing is in US dollars per million tokens.
type Pricing struct {
	Input      float64 `yaml:"input"`
	Output     float64 `yaml:"output"`
	CacheRead  float64 `yaml:"cache_read"`
	CacheWrite float64 `yaml:"cache_write"`
}

// withDefaults fills what the file may leave out. It is applied on load and
// again on resolve, so a Config built in code behaves like a loaded one.
func (m Model) withDefaults() Model {
	if m.Name == "" {
		m.Name = m.ID
	}
	if m.ContextWindow == 0 {
		m.ContextWindow = DefaultContextWindow
	}
	if m.ToolStyle == "" {
		m.ToolStyle = ToolStyleAuto
	}
	if m.Thinking && m.MaxThinking == "" {
		m.MaxThinking = ThinkingHigh
	}
	if !m.Thinking {
		m.MaxThinking = ThinkingOff
	}
	return m
}

// where names the file for error messages, even for a Config built in code.
func (c Config) where() string {
	if c.Path == "" {
		return FileName
	}
	return c.Path
}

func (c Config) provider(name string) (Provider, bool) {
	for _, p := range c.Providers {
		if p.Name == name {
			return p, true
		}
	}
	return Provider{}, false
}

// known reports whether name can be selected: listed, or built in.
func (c Config) known(name string) bool {
	if _, ok := builtinProvider(name); ok {
		return true
	}
	_, ok := c.provider(name)
	return ok
}

// providerNames lists the selectable providers for "known providers:"
// hints: the file's, then the built-in ones it does not list.
func (c Config) providerNames() []string {
	names := make([]string, 0, len(c.Providers)+len(builtins))
	for _, p := range c.Providers {
		names = append(names, p.Name)
	}
	for _, b := range builtins {
		if _, ok := c.provider(b.name); !ok {
			names = append(names, b.name)
		}
	}
	return names
}

func (p Provider) model(id string) (Model, bool) {
	for _, m := range p.Models {
		if m.ID == id {
			return m, true
		}
	}
	return Model{}, false
}
