package modelconfig

// ModelRef is one listed model with the provider it belongs to.
type ModelRef struct {
	Provider string
	// API is the one the model is spoken to with (Available fills it).
	API   string
	Model Model
}

// Models lists every model in models.yml in file order, providers first to
// last and models in the order written, for get_available_models.
func (c Config) Models() []ModelRef {
	var refs []ModelRef
	for _, p := range c.Providers {
		for _, m := range p.Models {
			refs = append(refs, ModelRef{Provider: p.Name, Model: m.withDefaults()})
		}
	}
	return refs
}

// NextModel returns the listed model after provider/id, wrapping around,
// for cycle_model. A current model that is not listed (chosen by flag)
// moves to the first listed one. ok is false when there is nothing to
// switch to: no listed models, or only the current one.
func (c Config) NextModel(provider, id string) (next ModelRef, ok bool) {
	refs := c.Models()
	if len(refs) == 0 {
		return ModelRef{}, false
	}
	for i, r := range refs {
		if r.Provider != provider || r.Model.ID != id {
			continue
		}
		if len(refs) == 1 {
			return ModelRef{}, false
		}
		return refs[(i+1)%len(refs)], true
	}
	return refs[0], true
}

// Available is every model a client may choose from: the models of each
// provider models.yml lists, in file order (a built-in provider's catalog
// after the file's own models, unless openai's base_url is another
// server), then the catalogs of the built-in
// providers the file does not list whose credentials env holds
// ([Configured]). A catalog without credentials is left out: none of its
// models could answer.
func (c Config) Available(env func(string) string) []ModelRef {
	var refs []ModelRef
	add := func(p Provider) {
		// A compatible server in openai's place serves its own models.
		if p.Name != OpenAI || p.BaseURL == "" || trimSlash(p.BaseURL) == DefaultOpenAIBaseURL {
			p = p.merged()
		}
		for _, m := range p.Models {
			refs = append(refs, ModelRef{Provider: p.Name, API: p.api(m), Model: m.withDefaults()})
		}
	}
	for _, p := range c.Providers {
		add(p)
	}
	for _, b := range builtins {
		if _, listed := c.provider(b.name); !listed && Configured(b.name, env) {
			add(Provider{Name: b.name})
		}
	}
	return refs
}
