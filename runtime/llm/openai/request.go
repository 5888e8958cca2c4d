package openai

import (
	"encoding/json"
	"fmt"

	"github.com/troupehq/troupe/runtime/llm"
)

type wireRequest struct {
	Model           string             `json:"model"`
	Messages        []wireMessage      `json:"messages"`
	Tools           []wireTool         `json:"tools,omitempty"`
	MaxTokens       int                `json:"max_tokens,omitempty"`
	Temperature     *float64           `json:"temperature,omitempty"`
	ReasoningEffort string             `json:"reasoning_effort,omitempty"`
	Stream          bool               `json:"stream,omitempty"`
	StreamOptions   *wireStreamOptions `json:"stream_options,omitempty"`
}

type wireStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireMessage struct {
	Role string `json:"role"`
	// Content is a string, a []wirePart when there are images, or nil for an
	// assistant turn that only calls tools (OpenAI wants null there).
	Content          any            `json:"content"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
}

type wirePart struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	ImageURL *wireImageURL `json:"image_url,omitempty"`
}

type wireImageURL struct {
	URL string `json:"url"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string          `json:"type"`
	Function wireFunctionDef `json:"function"`
}

type wireFunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema stands in for a tool without parameters: several servers
// reject a function without a parameters object.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// reasoningEffort maps a thinking level to OpenAI's reasoning_effort, which
// has no "xhigh": the strongest level it knows is the closest.
func reasoningEffort(l llm.ThinkingLevel) (string, error) {
	switch l {
	case "", llm.ThinkingOff:
		return "", nil
	case llm.ThinkingMinimal, llm.ThinkingLow, llm.ThinkingMedium, llm.ThinkingHigh:
		return string(l), nil
	case llm.ThinkingXHigh:
		return string(llm.ThinkingHigh), nil
	default:
		return "", fmt.Errorf("unknown thinking level %q", l)
	}
}

func (c *Client) encodeRequest(req llm.Request) ([]byte, error) {
	w := wireRequest{
		Model:       req.Model,
		Messages:    make([]wireMessage, len(req.Messages)),
		MaxTokens:   req.MaxTokens,
		Temperature: req.Temperature,
		Stream:      req.Stream,
	}
	if req.Stream {
		// Without it, new llama-server and OpenAI send no usage at all.
		w.StreamOptions = &wireStreamOptions{IncludeUsage: true}
	}
	if c.cfg.SupportsThinking {
		effort, err := reasoningEffort(req.Thinking)
		if err != nil {
			return nil, err
		}
		w.ReasoningEffort = effort
	}
	for i, m := range req.Messages {
		w.Messages[i] = c.wireMessage(m)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = emptySchema
		}
		w.Tools = append(w.Tools, wireTool{
			Type:     "function",
			Function: wireFunctionDef{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return b, nil
}

func (c *Client) wireMessage(m llm.Message) wireMessage {
	w := wireMessage{Role: string(m.Role), ToolCallID: m.ToolCallID}
	switch {
	case len(m.Images) > 0:
		parts := make([]wirePart, 0, len(m.Images)+1)
		if m.Content != "" {
			parts = append(parts, wirePart{Type: "text", Text: m.Content})
		}
		for _, img := range m.Images {
			url := "data:" + img.MIMEType + ";base64," + img.Data
			parts = append(parts, wirePart{Type: "image_url", ImageURL: &wireImageURL{URL: url}})
		}
		w.Content = parts
	case m.Content == "" && len(m.ToolCalls) > 0:
		w.Content = nil
	default:
		w.Content = m.Content
	}
	if c.cfg.PreserveThinking && m.Role == llm.RoleAssistant {
		w.ReasoningContent = m.Thinking
	}
	for _, tc := range m.ToolCalls {
		args := tc.Arguments
		if args == "" {
			// Chat templates parse the arguments; an empty string breaks them.
			args = "{}"
		}
		w.ToolCalls = append(w.ToolCalls, wireToolCall{
			ID:       tc.ID,
			Type:     "function",
			Function: wireFunction{Name: tc.Name, Arguments: args},
		})
	}
	return w
}
