package main

import (
	"time"

	"github.com/spf13/pflag"
	"github.com/troupehq/troupe/actors/sessions/engine"
	"github.com/troupehq/troupe/runtime/modelconfig"
)

// modelFlags are the model and loop flags that `run`, `--mode rpc`,
// `acp`, `mcp` and `daemon` share (existing hosts pass them unchanged to
// either): declared once here, registered by each command that embeds
// them.
type modelFlags struct {
	provider, model, baseURL, apiKey, thinking string
	maxTokens, maxTurns                        int
	noRetry                                    bool
	retryDelay                                 time.Duration
}

func (m *modelFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&m.provider, "provider", "", "provider: openai, anthropic, google, bedrock, vertex, or a name from models.yml")
	fs.StringVar(&m.model, "model", "", "model id (or provider/model)")
	fs.StringVar(&m.baseURL, "base-url", "", "override the provider's base URL")
	fs.StringVar(&m.apiKey, "api-key", "", "override the provider's API key")
	enumVar(fs, &m.thinking, "thinking", "", thinkingLevels(), "thinking level; default: the model's")
	fs.IntVar(&m.maxTokens, "max-tokens", 0, "cap on each reply's tokens")
	fs.IntVar(&m.maxTurns, "max-turns", 50, "LLM calls per run before asking for a final answer")
	fs.BoolVar(&m.noRetry, "no-retry", false, "do not retry transient provider errors")
	fs.DurationVar(&m.retryDelay, "retry-delay", 2*time.Second, "wait before the first of the 3 automatic retries, doubled for each next one")
}

func (m *modelFlags) selection() modelconfig.Selection {
	return modelconfig.Selection{Provider: m.provider, Model: m.model, BaseURL: m.baseURL, APIKey: m.apiKey, MaxTokens: m.maxTokens}
}

// engine is the session engine's options from the flags: mode is the
// approval mode of new sessions; deny refuses what needs an approval
// nobody can give (a command with no one to ask).
func (m *modelFlags) engine(mode string, deny bool) engine.Options {
	return engine.Options{Thinking: m.thinking, Mode: mode, DenyUnapproved: deny, MaxSteps: m.maxTurns,
		AutoRetry: !m.noRetry, RetryDelay: m.retryDelay, Selection: m.selection()}
}
