package sessions

import "github.com/troupehq/troupe/persistence/event"

// Models answers what clients ask about the models sessions run on: which
// there are, what each is, its thinking levels and its prices. It answers
// as the engine resolves models (actors/sessions/engine implements it from the
// models.yml and flags it runs on), so no client reads models.yml itself.
type Models interface {
	// Default is the provider and model of a session that sets none; both
	// empty when the configuration resolves none.
	Default() (provider, model string)
	// Model describes provider/model.
	Model(provider, model string) (Model, error)
	// List is every model a client may choose, in order: models.yml's,
	// then the catalogs of the built-in providers whose credentials are
	// set, after the default when neither lists it.
	List() []Model
	// ClampThinking is the level nearest to level that provider/model
	// supports (off for a model that does not resolve, or an unknown level).
	ClampThinking(provider, model, level string) string
	// NextThinking is the level after level, wrapping to off; ok is false
	// when the model has no thinking.
	NextThinking(provider, model, level string) (next string, ok bool)
	// Cost prices usage on provider/model.
	Cost(provider, model string, u event.Usage) (Cost, error)
}

// Model is what a client is told of one model.
type Model struct {
	Provider string
	// API is the wire format (runtime/llm/providers' API names).
	API             string
	ID              string
	Name            string
	BaseURL         string
	Thinking        bool
	ContextWindow   int
	MaxOutputTokens int
	Pricing         Pricing
}

// Pricing is in US dollars per million tokens.
type Pricing struct {
	Input      float64
	Output     float64
	CacheRead  float64
	CacheWrite float64
}

// Cost is in US dollars.
type Cost struct {
	Input      float64
	Output     float64
	CacheRead  float64
	CacheWrite float64
	Total      float64
}
