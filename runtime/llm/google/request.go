package google

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/troupehq/troupe/runtime/llm"
)

// Gemini's roles: the user (and the results of function calls it sends
// back) and the model.
const (
	roleUser  = "user"
	roleModel = "model"
)

// thinkingBudgets maps a thinking level to a thinkingBudget in tokens;
// xhigh stays within every 2.5 model's range (Flash stops at 24576).
var thinkingBudgets = map[llm.ThinkingLevel]int32{
	llm.ThinkingMinimal: 1024,
	llm.ThinkingLow:     4096,
	llm.ThinkingMedium:  8192,
	llm.ThinkingHigh:    16384,
	llm.ThinkingXHigh:   24576,
}

// encode builds the contents and configuration of req.
func (c *Client) encode(req llm.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	cfg := &genai.GenerateContentConfig{
		// The engine retries and resumes; the SDK must not send the same
		// request again behind its back.
		AutomaticContinuation: genai.Ptr(false),
	}
	if req.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(min(req.MaxTokens, 1<<31-1))
	}
	if req.Temperature != nil {
		cfg.Temperature = genai.Ptr(float32(*req.Temperature))
	}
	if c.cfg.SupportsThinking && req.Thinking != "" && req.Thinking != llm.ThinkingOff {
		budget, ok := thinkingBudgets[req.Thinking]
		if !ok {
			return nil, nil, fmt.Errorf("thinking level %q is unknown", req.Thinking)
		}
		cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: genai.Ptr(budget)}
	}
	if len(req.Headers) > 0 || req.SessionID != "" {
		cfg.HTTPOptions = &genai.HTTPOptions{Headers: map[string][]string{}}
		for k, v := range req.Headers {
			cfg.HTTPOptions.Headers.Set(k, v)
		}
		if req.SessionID != "" {
			cfg.HTTPOptions.Headers.Set("X-Session-ID", req.SessionID)
		}
	}
	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, len(req.Tools))
		for i, t := range req.Tools {
			decls[i] = &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
			if len(t.Parameters) > 0 && string(t.Parameters) != "null" {
				// The Gemini API takes JSON Schema as it is in
				// parametersJsonSchema, so no conversion to its OpenAPI
				// subset is needed (or can lose anything).
				decls[i].ParametersJsonSchema = t.Parameters
			}
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	contents, system, err := encodeMessages(req.Messages)
	if err != nil {
		return nil, nil, err
	}
	if system != "" {
		cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: system}}}
	}
	return contents, cfg, nil
}

// wireCall is how one tool call of the history goes to Gemini: its
// function's name and the id Gemini gave it ("" when it gave none, or when
// another provider made the call: such ids mean nothing to Gemini, so the
// call and its result are matched by name and order instead, both sides
// alike).
type wireCall struct {
	name, id string
}

// encodeMessages turns the history into contents and the system
// instruction. Consecutive turns of one role (a run of tool results, a
// user's message after them) become one content, as Gemini wants turns to
// alternate.
func encodeMessages(msgs []llm.Message) ([]*genai.Content, string, error) {
	var (
		out    []*genai.Content
		system []string
		calls  = map[string]wireCall{}
	)
	add := func(role string, parts []*genai.Part) {
		if len(parts) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			return
		}
		out = append(out, &genai.Content{Role: role, Parts: parts})
	}
	for i, m := range msgs {
		switch m.Role {
		case llm.RoleSystem:
			if m.Content != "" {
				system = append(system, m.Content)
			}
		case llm.RoleUser:
			parts, err := userParts(m)
			if err != nil {
				return nil, "", fmt.Errorf("message %d: %w", i, err)
			}
			add(roleUser, parts)
		case llm.RoleAssistant:
			add(roleModel, modelParts(m, calls))
		case llm.RoleTool:
			parts, err := toolParts(m, calls)
			if err != nil {
				return nil, "", fmt.Errorf("message %d: %w", i, err)
			}
			add(roleUser, parts)
		default:
			return nil, "", fmt.Errorf("message %d: role %q is unknown", i, m.Role)
		}
	}
	return out, strings.Join(system, "\n\n"), nil
}

func userParts(m llm.Message) ([]*genai.Part, error) {
	var parts []*genai.Part
	if m.Content != "" {
		parts = append(parts, &genai.Part{Text: m.Content})
	}
	imgs, err := imageParts(m.Images)
	return append(parts, imgs...), err
}

func imageParts(imgs []llm.Image) ([]*genai.Part, error) {
	parts := make([]*genai.Part, 0, len(imgs))
	for j, img := range imgs {
		data, err := base64.StdEncoding.DecodeString(img.Data)
		if err != nil {
			return nil, fmt.Errorf("image %d: %w", j, err)
		}
		parts = append(parts, &genai.Part{InlineData: &genai.Blob{MIMEType: img.MIMEType, Data: data}})
	}
	return parts, nil
}

// modelParts rebuilds a model turn: its thought, its text and its function
// calls, each with the thought signature Gemini put on it when Gemini wrote
// the message. Another provider's continuation is dropped, and with it
// that provider's reasoning text, which Gemini has no use for.
func modelParts(m llm.Message, calls map[string]wireCall) []*genai.Part {
	st := decodeState(m)
	var parts []*genai.Part
	if st != nil && m.Thinking != "" {
		parts = append(parts, &genai.Part{Text: m.Thinking, Thought: true, ThoughtSignature: st.Thought})
	}
	if m.Content != "" {
		p := &genai.Part{Text: m.Content}
		if st != nil {
			p.ThoughtSignature = st.Text
		}
		parts = append(parts, p)
	}
	for j, tc := range m.ToolCalls {
		wc := wireCall{name: tc.Name}
		p := &genai.Part{FunctionCall: &genai.FunctionCall{Name: tc.Name, Args: callArgs(tc.Arguments)}}
		if st != nil && j < len(st.Calls) {
			wc.id = st.Calls[j].ID
			p.ThoughtSignature = st.Calls[j].Signature
		}
		p.FunctionCall.ID = wc.id
		calls[tc.ID] = wc
		parts = append(parts, p)
	}
	return parts
}

// callArgs parses a call's arguments for the history. Gemini wants an
// object; text that is not one (models do emit broken JSON) is kept under
// a key rather than dropped, so the model can see what it sent.
func callArgs(s string) map[string]any {
	var args map[string]any
	if strings.TrimSpace(s) == "" {
		return map[string]any{}
	}
	if json.Unmarshal([]byte(s), &args) != nil || args == nil {
		return map[string]any{"arguments": s}
	}
	return args
}

// toolParts is a tool result as a functionResponse, named (and given the
// id) as the call it answers went to Gemini.
func toolParts(m llm.Message, calls map[string]wireCall) ([]*genai.Part, error) {
	wc, ok := calls[m.ToolCallID]
	if !ok {
		// A result whose call is not in the history: Gemini needs a name,
		// and the id is the only one there is.
		wc = wireCall{name: m.ToolCallID}
	}
	parts := []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
		ID:       wc.id,
		Name:     wc.name,
		Response: map[string]any{"output": m.Content},
	}}}
	imgs, err := imageParts(m.Images)
	return append(parts, imgs...), err
}
