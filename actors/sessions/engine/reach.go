package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/modelconfig"
)

// reach is a provider whose failures a person can act on are said so:
// a server not reached at all (llm.Unreachable) gets the URL, the
// network's word for why and, once the retries are spent, a hint naming
// where that URL was configured; a refused key names where the key came
// from; a model the provider does not know names the catalog.
type reach struct {
	llm.Provider
	res    modelconfig.Resolved
	models string // models.yml's path
}

func (r reach) Stream(ctx context.Context, req llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	resp, err := r.Provider.Stream(ctx, req, sink)
	if err != nil {
		err = r.explain(err)
		err = llm.Unreachable(err, cmp.Or(r.res.BaseURL, r.res.BaseURLFrom), r.hint())
	}
	return resp, err
}

// explain adds to an answered request's error what the user can change:
// the key's source on a 401, the catalog on a model the provider does not
// know. The *llm.Error stays in the chain, classified as it was.
func (r reach) explain(err error) error {
	var le *llm.Error
	if !errors.As(err, &le) {
		return err
	}
	var add string
	switch {
	case le.Status == http.StatusUnauthorized:
		add = r.keyHint()
	case !r.res.Listed && (le.Status == http.StatusNotFound || le.Status == http.StatusBadRequest) && mentionsModel(le.Message):
		add = r.catalogHint()
	default:
		return err
	}
	return fmt.Errorf("%w (%s)", err, add)
}

var modelWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bmodel`) })

func mentionsModel(msg string) bool { return modelWord().MatchString(msg) }

func (r reach) keyHint() string {
	if r.res.APIKeyFrom == "" {
		var vars string
		for _, v := range modelconfig.KeyVariables(r.res.Provider) {
			vars += "$" + v + ", "
		}
		return fmt.Sprintf("provider %q sent no API key: set one with %sapi_key_env under providers.%s in %s, or --api-key",
			r.res.Provider, vars, r.res.Provider, cmp.Or(r.models, modelconfig.FileName))
	}
	return fmt.Sprintf("provider %q refused the API key from %s", r.res.Provider, r.res.APIKeyFrom)
}

func (r reach) catalogHint() string {
	return fmt.Sprintf("model %q is not in troupe's catalog of provider %q: get_available_models and GET /v1/agents list the catalog's models; a model the catalog lacks is listed under providers.%s.models in %s",
		r.res.Model.ID, r.res.Provider, r.res.Provider, cmp.Or(r.models, modelconfig.FileName))
}

func (r reach) hint() string {
	models := cmp.Or(r.models, modelconfig.FileName)
	from := r.res.BaseURLFrom
	if envName().MatchString(from) {
		from = "$" + from
	}
	vars := fmt.Sprintf("$%s (provider %s)", modelconfig.EnvOpenAIBaseURL, modelconfig.OpenAI)
	if own := modelconfig.BaseURLVariables(r.res.Provider); len(own) > 0 {
		vars = "$" + strings.Join(own, ", $")
	}
	return fmt.Sprintf("is the server running? Provider %q's URL comes from %s; start the server there, or point the provider elsewhere: base_url under providers.%s in %s, %s, or --base-url",
		r.res.Provider, from, r.res.Provider, models, vars)
}

var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`) })
