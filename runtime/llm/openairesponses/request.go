package openairesponses

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/troupehq/troupe/runtime/llm"
)

// emptySchema stands in for a tool without parameters.
var emptySchema = map[string]any{"type": "object", "properties": map[string]any{}}

// newParams builds the request body. store is always false: the session
// log keeps the conversation, and every request sends it whole.
func newParams(req llm.Request, thinking bool) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{
		Model: req.Model,
		Store: param.NewOpt(false),
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.MaxTokens))
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.SessionID != "" {
		p.PromptCacheKey = param.NewOpt(cacheKey(req.SessionID))
	}
	if thinking {
		effort, err := reasoningEffort(req.Thinking)
		if err != nil {
			return p, err
		}
		p.Reasoning = shared.ReasoningParam{Effort: effort, Summary: shared.ReasoningSummaryAuto}
		// Without store, the reasoning comes back only encrypted, to be
		// sent back next turn.
		p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	}
	instructions, input, err := newInput(req.Messages)
	if err != nil {
		return p, err
	}
	if instructions != "" {
		p.Instructions = param.NewOpt(instructions)
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	for _, t := range req.Tools {
		tool, err := functionTool(t)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: &tool})
	}
	return p, nil
}

// maxCacheKey bounds the prompt_cache_key sent: a session id is a
// client's word, and a long one is hashed rather than sent as it is.
const maxCacheKey = 64

// cacheKey routes a session's requests to the same prompt cache.
func cacheKey(sessionID string) string {
	if len(sessionID) <= maxCacheKey {
		return sessionID
	}
	sum := sha256.Sum256([]byte(sessionID))
	return "troupe-" + hex.EncodeToString(sum[:16])
}

// reasoningEffort maps a thinking level to reasoning.effort; empty means
// the model's default. The Responses API knows every level troupe has,
// xhigh included (a model without it answers 400, which names it).
func reasoningEffort(l llm.ThinkingLevel) (shared.ReasoningEffort, error) {
	switch l {
	case "", llm.ThinkingOff:
		return "", nil
	case llm.ThinkingMinimal, llm.ThinkingLow, llm.ThinkingMedium, llm.ThinkingHigh, llm.ThinkingXHigh:
		return shared.ReasoningEffort(l), nil
	default:
		return "", fmt.Errorf("unknown thinking level %q", l)
	}
}

// functionTool declares a tool. strict is sent false: the API's default is
// true, which rejects any schema that is not closed and fully required,
// as most MCP tools' are not.
func functionTool(t llm.ToolDef) (responses.FunctionToolParam, error) {
	schema := emptySchema
	if len(t.Parameters) > 0 {
		if err := json.Unmarshal(t.Parameters, &schema); err != nil {
			return responses.FunctionToolParam{}, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
		}
	}
	tool := responses.FunctionToolParam{Name: t.Name, Parameters: schema, Strict: param.NewOpt(false)}
	if t.Description != "" {
		tool.Description = param.NewOpt(t.Description)
	}
	return tool, nil
}
