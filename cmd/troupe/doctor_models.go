package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/troupehq/troupe/runtime/llm/providers"
	"github.com/troupehq/troupe/runtime/modelconfig"
)

// checkModels loads models.yml and asks each provider for its models:
// one that does not answer, or refuses its key, is a problem; a listed
// model the provider does not list is a warning.
func (d *doctor) checkModels(ctx context.Context) {
	path := filepath.Join(d.home, modelconfig.FileName)
	cfg, err := modelconfig.Load(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.r.warn("no models.yml: sessions need --provider/--model or $OPENAI_BASE_URL",
			"run `troupe init`: it writes one from what it finds here")
	case err != nil:
		d.r.problem(fmt.Sprintf("models.yml does not load: %v", err),
			"correct it (`go doc github.com/troupehq/troupe/runtime/modelconfig` has every field), or move it away and run `troupe init`")
		return
	default:
		d.r.ok(fmt.Sprintf("models.yml loads: %d provider(s)", len(cfg.Providers)))
	}
	providers := slices.Clone(cfg.Providers)
	listed := func(name string) bool {
		return slices.ContainsFunc(providers, func(p modelconfig.Provider) bool { return p.Name == name })
	}
	if !listed(modelconfig.OpenAI) && (d.getenv(modelconfig.EnvOpenAIBaseURL) != "" || d.getenv(modelconfig.EnvOpenAIAPIKey) != "") {
		providers = append(providers, modelconfig.Provider{Name: modelconfig.OpenAI})
	}
	// The built-in providers whose credentials the environment holds are
	// offered to every session, listed in models.yml or not.
	for _, name := range []string{modelconfig.Anthropic, modelconfig.Google, modelconfig.Bedrock, modelconfig.Vertex} {
		if !listed(name) && modelconfig.Configured(name, d.getenv) {
			providers = append(providers, modelconfig.Provider{Name: name})
		}
	}
	for _, p := range providers {
		d.checkProvider(ctx, cfg, p)
	}
}

// checkProvider probes one provider at the base URL and key a session
// would use.
func (d *doctor) checkProvider(ctx context.Context, cfg modelconfig.Config, p modelconfig.Provider) {
	model := "any"
	if len(p.Models) > 0 {
		model = p.Models[0].ID
	}
	res, err := modelconfig.Resolve(cfg, modelconfig.Selection{Provider: p.Name, Model: model}, d.getenv)
	if err != nil {
		d.r.problem(fmt.Sprintf("provider %s: %v", p.Name, err), "set what it names in models.yml or the environment")
		return
	}
	what := fmt.Sprintf("provider %s at %s", p.Name, res.BaseURL)
	url, header, ok := modelsEndpoint(res)
	if !ok {
		d.r.ok(fmt.Sprintf("provider %s (api %s): region %q, project %q and credentials resolved; not probed, its API takes only signed requests", p.Name, res.API, res.Region, res.Project))
		return
	}
	resp, err := probeWith(ctx, url, header)
	if err != nil {
		d.r.problem(fmt.Sprintf("%s does not answer: %v", what, err),
			fmt.Sprintf("start the server, or correct providers.%s.base_url (a llama-server: `llama-server -m MODEL.gguf --port PORT`)", p.Name))
		return
	}
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		fix := fmt.Sprintf("set a valid key in the variable providers.%s.api_key_env names (or its api_key)", p.Name)
		if res.APIKeyFrom != "" {
			fix = "set a valid key in " + res.APIKeyFrom
		}
		d.r.problem(fmt.Sprintf("%s refuses the API key (%s)", what, resp.Status), fix)
		return
	}
	d.r.ok(fmt.Sprintf("%s answers (%s)", what, resp.Status))
	if resp.StatusCode != http.StatusOK || len(p.Models) == 0 {
		return
	}
	served, err := listModelsAt(ctx, url, header)
	if err != nil || len(served) == 0 {
		return // it answered: a server that lists nothing may still serve
	}
	for _, m := range p.Models {
		if !slices.Contains(served, m.ID) {
			d.r.warn(fmt.Sprintf("model %s/%s is not among the models the provider lists (%s)", p.Name, m.ID, strings.Join(served[:min(len(served), 5)], ", ")),
				fmt.Sprintf("correct its id under providers.%s.models, or load it on the server", p.Name))
		}
	}
}

// modelsEndpoint is where res's API lists its models, with the headers
// that API authenticates by; ok is false for the cloud platforms, whose
// requests must be signed (Bedrock's SigV4, Vertex's OAuth token).
func modelsEndpoint(res modelconfig.Resolved) (url string, header http.Header, ok bool) {
	header = http.Header{}
	base := strings.TrimSuffix(res.BaseURL, "/")
	switch res.API {
	case providers.APIAnthropic:
		header.Set("anthropic-version", "2023-06-01")
		if res.APIKey != "" {
			header.Set("x-api-key", res.APIKey)
		}
		return strings.TrimSuffix(base, "/v1") + "/v1/models", header, true
	case providers.APIGoogle:
		if res.APIKey != "" {
			header.Set("x-goog-api-key", res.APIKey)
		}
		return strings.TrimSuffix(base, "/v1beta") + "/v1beta/models", header, true
	case providers.APIBedrock, providers.APIVertex:
		return "", nil, false
	}
	if res.APIKey != "" {
		header.Set("Authorization", "Bearer "+res.APIKey)
	}
	return base + "/models", header, true
}
