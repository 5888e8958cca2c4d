package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/modelconfig"
	"github.com/troupehq/troupe/testkit"
	"github.com/troupehq/troupe/testkit/llmserver"
)

// The catalog lists the built-in providers whose credentials are set, and
// prices a catalog model with its cache writes.
func TestModelsCatalogShowsConfiguredBuiltins(t *testing.T) {
	m := catalogOf(t, twoModels, modelconfig.Selection{}, map[string]string{"ANTHROPIC_API_KEY": "k"})
	var listed []string
	for _, x := range m.List() {
		listed = append(listed, x.Provider+"/"+x.ID)
	}
	testkit.DeepEqual(t, listed, []string{"local/small", "local/big", "anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-1", "anthropic/claude-haiku-4-5"})
	sonnet, err := m.Model("anthropic", "claude-sonnet-4-5")
	testkit.NoError(t, err)
	testkit.Equal(t, sonnet.BaseURL, modelconfig.DefaultAnthropicBaseURL)
	testkit.Equal(t, sonnet.Thinking, true)
	cost, err := m.Cost("anthropic", "claude-sonnet-4-5", event.Usage{Input: 1_000_000, Output: 1_000_000, CacheRead: 1_000_000, CacheWrite: 1_000_000})
	testkit.NoError(t, err)
	testkit.Equal(t, cost.CacheWrite, 3.75)
	testkit.Equal(t, cost.Total, 3+15+0.3+3.75)
}

// A 401 names where the refused key came from; an unlisted model the
// server does not know names the catalog.
func TestProviderErrorsNameTheirFix(t *testing.T) {
	srv := llmserver.New(t, llmserver.Script{Model: "tiny", APIKey: "right", Replies: []llmserver.Reply{
		llmserver.Steps(llmserver.HTTPError(llmserver.APIError{Status: 404, Message: "model 'tiny-2' not found"})),
	}})
	stream := func(vars map[string]string, model string) error {
		e, err := engine.New(engine.Options{Home: t.TempDir(), Env: env(vars), Selection: modelconfig.Selection{Provider: "openai", Model: model}})
		testkit.NoError(t, err)
		m, err := e.Session().Resolve(context.Background(), session.State{})
		testkit.NoError(t, err)
		_, err = m.Provider.Stream(context.Background(), llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, func(llm.Chunk) error { return nil })
		return err
	}
	err := stream(map[string]string{"OPENAI_BASE_URL": srv.URL() + "/v1", "OPENAI_API_KEY": "wrong"}, "tiny")
	if err == nil || !strings.Contains(err.Error(), `provider "openai" refused the API key from $OPENAI_API_KEY`) || !llmErr(err) {
		t.Fatalf("401: %v", err)
	}
	err = stream(map[string]string{"OPENAI_BASE_URL": srv.URL() + "/v1", "OPENAI_API_KEY": "right"}, "tiny-2")
	if err == nil || !strings.Contains(err.Error(), `model "tiny-2" is not in troupe's catalog of provider "openai"`) {
		t.Fatalf("404: %v", err)
	}
}

func llmErr(err error) bool {
	var le *llm.Error
	return errors.As(err, &le) && le.Status == 401 && !le.Retryable
}
