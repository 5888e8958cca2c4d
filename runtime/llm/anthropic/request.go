package anthropic

import (
	"encoding/json"
	"fmt"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/troupehq/troupe/runtime/llm"
)

// thinkingBudgets are budget_tokens per thinking level (pi's figures). The
// API's floor is 1024.
var thinkingBudgets = map[llm.ThinkingLevel]int{
	llm.ThinkingMinimal: 1024,
	llm.ThinkingLow:     2048,
	llm.ThinkingMedium:  8192,
	llm.ThinkingHigh:    16384,
	llm.ThinkingXHigh:   32768,
}

// params builds the Messages request for req.
func (c *Client) params(req llm.Request) (sdk.MessageNewParams, error) {
	h, err := c.convert(req.Messages)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	tools, err := toolParams(req.Tools)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = c.cfg.DefaultMaxTokens
	}
	if maxTokens <= 0 {
		maxTokens = defaultMaxTokens
	}
	p := sdk.MessageNewParams{
		Model:    sdk.Model(req.Model),
		Messages: h.messages,
		System:   h.system,
		Tools:    tools,
	}
	budget := c.budget(req, h)
	if budget > 0 {
		// max_tokens counts the thinking too and must exceed the budget.
		if maxTokens <= budget {
			maxTokens += budget
		}
		p.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(budget))
	} else if req.Temperature != nil {
		// The API takes no temperature with thinking on; this SDK
		// version has no field for it, so it goes as an extra field.
		p.SetExtraFields(map[string]any{"temperature": *req.Temperature})
	}
	p.MaxTokens = int64(maxTokens)
	markCache(&p)
	return p, nil
}

// budget is the thinking budget to ask for, 0 for none. A turn in the
// middle of a tool loop whose assistant message has no thinking block
// (another provider wrote it) is sent without thinking: with thinking on,
// the API rejects a final assistant turn that does not open with one.
func (c *Client) budget(req llm.Request, h history) int {
	if !c.cfg.SupportsThinking {
		return 0
	}
	budget := thinkingBudgets[req.Thinking]
	if budget == 0 {
		return 0
	}
	if inToolLoop(req.Messages) && !h.lastThinks {
		return 0
	}
	return budget
}

// inToolLoop reports whether the conversation ends with tool results
// answering the last assistant message's calls.
func inToolLoop(msgs []llm.Message) bool {
	i := len(msgs) - 1
	for i >= 0 && msgs[i].Role == llm.RoleTool {
		i--
	}
	return i < len(msgs)-1 && i >= 0 && msgs[i].Role == llm.RoleAssistant && len(msgs[i].ToolCalls) > 0
}

// markCache sets the prompt-cache breakpoints as pi does: the end of the
// system prompt, the last tool (which caches every tool) and the last block
// of the last user message, so each turn reads the previous turn's prefix
// and writes its own.
func markCache(p *sdk.MessageNewParams) {
	if n := len(p.System); n > 0 {
		p.System[n-1].CacheControl = sdk.NewCacheControlEphemeralParam()
	}
	if n := len(p.Tools); n > 0 && p.Tools[n-1].OfTool != nil {
		p.Tools[n-1].OfTool.CacheControl = sdk.NewCacheControlEphemeralParam()
	}
	for i := len(p.Messages) - 1; i >= 0; i-- {
		u := p.Messages[i].OfUser
		if u == nil {
			continue
		}
		if n := len(u.Content); n > 0 {
			if cc := u.Content[n-1].GetCacheControl(); cc != nil {
				*cc = sdk.NewCacheControlEphemeralParam()
			}
		}
		return
	}
}

// toolParams turns tool definitions into the API's: the JSON Schema's
// properties and required list in their fields, its other keywords kept
// beside them.
func toolParams(defs []llm.ToolDef) ([]sdk.ToolUnionParam, error) {
	out := make([]sdk.ToolUnionParam, 0, len(defs))
	for _, d := range defs {
		schema := sdk.ToolInputSchemaParam{}
		if len(d.Parameters) > 0 {
			var m map[string]any
			if err := json.Unmarshal(d.Parameters, &m); err != nil {
				return nil, fmt.Errorf("tool %s: parameters: %w", d.Name, err)
			}
			schema.Properties = m["properties"]
			if req, ok := m["required"].([]any); ok {
				for _, r := range req {
					if s, ok := r.(string); ok {
						schema.Required = append(schema.Required, s)
					}
				}
			}
			for _, k := range []string{"type", "properties", "required"} {
				delete(m, k)
			}
			if len(m) > 0 {
				schema.ExtraFields = m
			}
		}
		if schema.Properties == nil {
			schema.Properties = map[string]any{}
		}
		t := sdk.ToolParam{Name: d.Name, InputSchema: schema}
		if d.Description != "" {
			t.Description = sdk.String(d.Description)
		}
		out = append(out, sdk.ToolUnionParam{OfTool: &t})
	}
	return slices.Clip(out), nil
}
