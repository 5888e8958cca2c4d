package openairesponses

import (
	"encoding/json"
	"fmt"
)

// continuation is the Data of this provider's llm.Continuation: the
// reply's output items in the order the model produced them. Reasoning
// items are kept whole (their encrypted content is the model's reasoning,
// which only OpenAI can read); a message or a function call is only a
// marker, since its text and arguments are the message's own Content and
// ToolCalls, which the conversation may have kept or changed. Sent back in
// this order, each reasoning item is followed by the item it led to, as
// the API requires.
type continuation struct {
	Output []contItem `json:"output"`
}

type contItem struct {
	// Type is reasoning, message or function_call.
	Type             string   `json:"type"`
	Summary          []string `json:"summary,omitempty"`
	EncryptedContent string   `json:"encrypted_content,omitempty"`
	// CallID names the message's tool call a function_call marker stands for.
	CallID string `json:"call_id,omitempty"`
}

const (
	itemReasoning    = "reasoning"
	itemMessage      = "message"
	itemFunctionCall = "function_call"
)

// hasReasoning reports whether c carries anything worth sending back: a
// reasoning item with encrypted content (without it, a reasoning item
// cannot be replayed to a server that stores nothing).
func (c *continuation) hasReasoning() bool {
	for _, it := range c.Output {
		if it.Type == itemReasoning && it.EncryptedContent != "" {
			return true
		}
	}
	return false
}

func decodeContinuation(data json.RawMessage) (continuation, error) {
	var c continuation
	if err := json.Unmarshal(data, &c); err != nil {
		return continuation{}, fmt.Errorf("decode %s continuation: %w", API, err)
	}
	return c, nil
}
