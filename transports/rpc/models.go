package rpc

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/samber/lo"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// thinkingOff is the level of a session and flags that set none.
const thinkingOff = "off"

// models answers what the protocol asks about models from the engine's
// catalog.
type models struct {
	cat      sessions.Models
	provider string // the default selection, resolved
	model    string
}

func newModels(cat sessions.Models) *models {
	if cat == nil {
		cat = noModels{}
	}
	m := &models{cat: cat}
	m.provider, m.model = cat.Default()
	return m
}

func (m *models) current(set event.Settings) (string, string) {
	return cmp.Or(lo.FromPtr(set.Provider), m.provider), cmp.Or(lo.FromPtr(set.Model), m.model)
}

func (m *models) price(provider, id string, u event.Usage) costJSON {
	c, err := m.cat.Cost(provider, id, u)
	if err != nil {
		return costJSON{Total: u.Cost}
	}
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
	r, err := m.cat.Model(provider, id)
	if err != nil {
		return nil, err
	}
	o := &modelJSON{ID: r.ID, Name: r.Name, API: piAPI(r.API), Provider: r.Provider, BaseURL: r.BaseURL,
		Reasoning: r.Thinking, Input: []string{"text", "image"}, ContextWindow: r.ContextWindow, MaxTokens: r.MaxOutputTokens}
	if o.Name == "" {
		o.Name = o.ID
	}
	o.Cost.Input, o.Cost.Output, o.Cost.CacheRead, o.Cost.CacheWrite = r.Pricing.Input, r.Pricing.Output, r.Pricing.CacheRead, r.Pricing.CacheWrite
	return o, nil
}

// piAPI is pi's name for the wire format a model is spoken to with
// (sessions.Model.API holds runtime/llm/providers' names, which a
// transport does not import): Bedrock and Vertex carry Anthropic's
// Messages API.
func piAPI(name string) string {
	switch name {
	case "openai-responses":
		return "openai-responses"
	case "anthropic", "bedrock", "vertex":
		return "anthropic-messages"
	case "google":
		return "google-generative-ai"
	}
	return api
}

// find returns the available model provider/id.
func (m *models) find(provider, id string) (sessions.Model, error) {
	for _, r := range m.cat.List() {
		if r.Provider == provider && r.ID == id {
			return r, nil
		}
	}
	return sessions.Model{}, fmt.Errorf("Model not found: %s/%s", provider, id)
}

// next is cycle_model's choice after provider/id; ok is false with one model.
func (m *models) next(provider, id string) (sessions.Model, bool) {
	refs := m.cat.List()
	if len(refs) < 2 {
		return sessions.Model{}, false
	}
	for i, r := range refs {
		if r.Provider == provider && r.ID == id {
			return refs[(i+1)%len(refs)], true
		}
	}
	return refs[0], true
}

// thinking is the session's thinking level (else def, else off), clamped
// to what its model supports; unclamped when the model does not resolve.
func (m *models) thinking(set event.Settings, def string) string {
	level := cmp.Or(lo.FromPtrOr(set.ThinkingLevel, def), thinkingOff)
	p, id := m.current(set)
	if _, err := m.cat.Model(p, id); err != nil {
		return level
	}
	return m.cat.ClampThinking(p, id, level)
}

// noModels is the catalog of a connection given none.
type noModels struct{}

var errNoModels = errors.New("no models are configured")

func (noModels) Default() (string, string)                          { return "", "" }
func (noModels) Model(string, string) (sessions.Model, error)       { return sessions.Model{}, errNoModels }
func (noModels) List() []sessions.Model                             { return nil }
func (noModels) ClampThinking(string, string, string) string        { return thinkingOff }
func (noModels) NextThinking(string, string, string) (string, bool) { return thinkingOff, false }
func (noModels) Cost(string, string, event.Usage) (sessions.Cost, error) {
	return sessions.Cost{}, errNoModels
}
