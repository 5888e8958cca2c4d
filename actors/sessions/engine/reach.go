package engine

import (
	"cmp"
	"context"
	"fmt"

	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/modelconfig"
)

// reach is a provider whose failures to reach its server at all are said
// plainly (llm.Unreachable): the URL and the network's word for why, and,
// once the retries are spent, a hint naming where that URL was configured
// and the other ways to point the provider elsewhere.
type reach struct {
	llm.Provider
	res    modelconfig.Resolved
	models string // models.yml's path
}

func (r reach) Stream(ctx context.Context, req llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	resp, err := r.Provider.Stream(ctx, req, sink)
	if err != nil {
		err = llm.Unreachable(err, r.res.BaseURL, r.hint())
	}
	return resp, err
}

func (r reach) hint() string {
	models := cmp.Or(r.models, modelconfig.FileName)
	from := r.res.BaseURLFrom
	if from == modelconfig.EnvOpenAIBaseURL {
		from = "$" + from
	}
	return fmt.Sprintf("is the server running? Provider %q's URL comes from %s; start the server there, or point the provider elsewhere: base_url under providers.%s in %s, $%s (provider %s), or --base-url",
		r.res.Provider, from, r.res.Provider, models, modelconfig.EnvOpenAIBaseURL, modelconfig.OpenAI)
}
