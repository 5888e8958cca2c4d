package modelconfig

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// check finds mistakes the YAML decoder cannot: things that are each valid
// alone but not together. Messages use the YAML path so the user can find
// the spot without a line number.
func (c Config) check() error {
	for _, p := range c.Providers {
		if err := p.check(); err != nil {
			return err
		}
	}
	return c.checkDefault()
}

func (c Config) checkDefault() error {
	d := c.expandDefault()
	if d.Provider == "" && d.Model != "" {
		return fmt.Errorf("default.model %q has no provider: set default.provider or write it as provider/model", d.Model)
	}
	if d.Provider != "" && !c.known(d.Provider) {
		return fmt.Errorf("default.provider %q is not a provider: known providers: %s",
			d.Provider, strings.Join(c.providerNames(), ", "))
	}
	return nil
}

func (p Provider) check() error {
	at := "providers." + p.Name
	if p.Name == "" || strings.Contains(p.Name, "/") {
		return fmt.Errorf("provider name %q: must be non-empty and without '/', which separates provider/model", p.Name)
	}
	if err := checkAPI(p.API); err != nil {
		return fmt.Errorf("%s.api: %w", at, err)
	}
	if p.APIKey != "" && p.APIKeyEnv != "" {
		return fmt.Errorf("%s: set api_key or api_key_env, not both", at)
	}
	if p.BaseURL != "" {
		if _, err := checkBaseURL(p.BaseURL); err != nil {
			return fmt.Errorf("%s.base_url: %w", at, err)
		}
	}
	for name := range p.Headers {
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("%s.headers: empty header name", at)
		}
	}
	seen := map[string]int{}
	for i, m := range p.Models {
		mat := fmt.Sprintf("%s.models[%d]", at, i)
		if first, dup := seen[m.ID]; dup && m.ID != "" {
			return fmt.Errorf("%s: id %q already listed at %s.models[%d]", mat, m.ID, at, first)
		}
		seen[m.ID] = i
		if err := m.check(); err != nil {
			return fmt.Errorf("%s: %w", mat, err)
		}
	}
	return nil
}

func (m Model) check() error {
	switch {
	case strings.TrimSpace(m.ID) == "":
		return errors.New("id is empty")
	case m.ContextWindow < 0:
		return errors.New("context_window must not be negative")
	case m.MaxOutputTokens < 0:
		return errors.New("max_output_tokens must not be negative")
	case m.ContextWindow > 0 && m.MaxOutputTokens > m.ContextWindow:
		return fmt.Errorf("max_output_tokens %d exceeds context_window %d", m.MaxOutputTokens, m.ContextWindow)
	case checkAPI(m.API) != nil:
		return fmt.Errorf("api: %w", checkAPI(m.API))
	case m.MaxThinking != "" && !m.Thinking:
		return errors.New("max_thinking needs thinking: true")
	case m.Thinking && m.MaxThinking == ThinkingOff:
		return errors.New("max_thinking off contradicts thinking: true; set thinking: false instead")
	}
	return m.Pricing.check()
}

func (p Pricing) check() error {
	for _, v := range []struct {
		name  string
		price float64
	}{{"input", p.Input}, {"output", p.Output}, {"cache_read", p.CacheRead}, {"cache_write", p.CacheWrite}} {
		if v.price < 0 {
			return fmt.Errorf("cost.%s must not be negative", v.name)
		}
	}
	return nil
}

// checkAPI accepts an empty api (the provider's own) or one of the names
// runtime/llm/providers speaks.
func checkAPI(api string) error {
	if api == "" || slices.Contains(apiNames, api) {
		return nil
	}
	return fmt.Errorf("%q is not an API: want %s", api, strings.Join(apiNames, ", "))
}
