package anthropic

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/troupehq/troupe/runtime/llm"
)

// block is one content block of an assistant reply as the API sent it. A
// reply's continuation is its blocks in order, so a thinking block goes back
// with its exact text and signature, a redacted one with its data, and both
// in their place between the text and the tool calls.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`

	call  int    // tool_use: the call's index in the reply
	input []byte // tool_use: the input as it streams
	text  []byte // text and thinking as they stream (appending to a string would copy it each time)
}

// continuation keeps the blocks when the reply reasoned; a reply without
// thinking is rebuilt from the message alone.
func (r *reader) continuation() *llm.Continuation {
	needed := false
	for _, b := range r.blocks {
		needed = needed || b.Type == "thinking" || b.Type == "redacted_thinking"
	}
	if !needed {
		return nil
	}
	for i := range r.blocks {
		b := &r.blocks[i]
		switch b.Type {
		case "text":
			b.Text = string(b.text)
		case "thinking":
			b.Thinking = string(b.text)
		}
	}
	data, err := json.Marshal(r.blocks)
	if err != nil {
		// Strings and raw JSON the API sent cannot fail to encode.
		return nil
	}
	return &llm.Continuation{Provider: r.api, Data: data}
}

// history is the request's conversation in the API's terms.
type history struct {
	system   []sdk.TextBlockParam
	messages []sdk.MessageParam
	// lastThinks: the last assistant turn opens with a thinking block.
	lastThinks bool
}

// convert translates the conversation. System messages become system
// blocks. Consecutive user and tool messages become one user message (tool
// results first, as the API wants them). An assistant message written by
// this API goes back as its continuation's blocks; one written by another
// provider goes back as text and tool calls only: its reasoning has no
// signature the API would accept as a thinking block, and the API never
// shows the model the thinking of earlier turns anyway, so dropping it
// loses nothing the model would have seen, whereas sending it as text
// would make the model read thoughts as words it said.
func (c *Client) convert(msgs []llm.Message) (history, error) {
	var h history
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleSystem:
			if m.Content != "" {
				h.system = append(h.system, sdk.TextBlockParam{Text: m.Content})
			}
		case llm.RoleUser:
			h.user(userBlocks(m))
		case llm.RoleTool:
			h.user([]sdk.ContentBlockParamUnion{toolResult(m)})
		case llm.RoleAssistant:
			blocks, thinks, err := c.assistantBlocks(m)
			if err != nil {
				return history{}, err
			}
			h.lastThinks = thinks
			if len(blocks) > 0 {
				h.messages = append(h.messages, sdk.NewAssistantMessage(blocks...))
			}
		default:
			return history{}, fmt.Errorf("message role %q is unknown", m.Role)
		}
	}
	return h, nil
}

// user appends blocks to the last message when it is a user one.
func (h *history) user(blocks []sdk.ContentBlockParamUnion) {
	if len(blocks) == 0 {
		return
	}
	if n := len(h.messages); n > 0 && h.messages[n-1].OfUser != nil {
		u := h.messages[n-1].OfUser
		u.Content = append(u.Content, blocks...)
		return
	}
	h.messages = append(h.messages, sdk.NewUserMessage(blocks...))
}

// userBlocks puts images before the text, as the API recommends.
func userBlocks(m llm.Message) []sdk.ContentBlockParamUnion {
	out := make([]sdk.ContentBlockParamUnion, 0, len(m.Images)+1)
	for _, img := range m.Images {
		out = append(out, sdk.NewImageBlockBase64(img.MIMEType, img.Data))
	}
	if m.Content != "" {
		out = append(out, sdk.NewTextBlock(m.Content))
	}
	return out
}

func toolResult(m llm.Message) sdk.ContentBlockParamUnion {
	r := sdk.ToolResultBlockParam{ToolUseID: toolID(m.ToolCallID)}
	for _, img := range m.Images {
		r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfImage: &sdk.ImageBlockParam{
			Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
				Data: img.Data, MediaType: sdk.Base64ImageSourceMediaType(img.MIMEType),
			}},
		}})
	}
	// The API rejects empty text blocks; an empty result has no content.
	if m.Content != "" {
		r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: m.Content}})
	}
	return sdk.ContentBlockParamUnion{OfToolResult: &r}
}

// assistantBlocks rebuilds an assistant turn, and says whether it opens
// with reasoning.
func (c *Client) assistantBlocks(m llm.Message) ([]sdk.ContentBlockParamUnion, bool, error) {
	if data := m.Continuation.For(c.api); data != nil {
		var blocks []block
		if err := json.Unmarshal(data, &blocks); err != nil {
			return nil, false, fmt.Errorf("read the %s continuation of an assistant message: %w", c.api, err)
		}
		out := make([]sdk.ContentBlockParamUnion, 0, len(blocks))
		for _, b := range blocks {
			switch b.Type {
			case "thinking":
				out = append(out, sdk.NewThinkingBlock(b.Signature, b.Thinking))
			case "redacted_thinking":
				out = append(out, sdk.NewRedactedThinkingBlock(b.Data))
			case "text":
				if b.Text != "" {
					out = append(out, sdk.NewTextBlock(b.Text))
				}
			case "tool_use":
				out = append(out, toolUse(b.ID, b.Name, string(b.Input)))
			}
		}
		thinks := len(blocks) > 0 && (blocks[0].Type == "thinking" || blocks[0].Type == "redacted_thinking")
		return out, thinks, nil
	}
	out := make([]sdk.ContentBlockParamUnion, 0, len(m.ToolCalls)+1)
	if m.Content != "" {
		out = append(out, sdk.NewTextBlock(m.Content))
	}
	for _, tc := range m.ToolCalls {
		out = append(out, toolUse(tc.ID, tc.Name, tc.Arguments))
	}
	return out, false, nil
}

// toolUse sends a call's arguments as they were when they are a JSON
// object; anything else (a model's broken JSON) goes as {}, since the API
// takes nothing but an object and the tool's error already told the model.
func toolUse(id, name, args string) sdk.ContentBlockParamUnion {
	var input any = json.RawMessage("{}")
	if trimmed := strings.TrimSpace(args); strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
		input = json.RawMessage(trimmed)
	}
	return sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{ID: toolID(id), Name: name, Input: input}}
}

// validToolID reports whether the API accepts id as it is:
// ^[a-zA-Z0-9_-]{1,64}$, checked by hand (a package-level regexp would be
// compiled at every start of the binary, for one request's ids).
func validToolID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !idByte(id[i]) {
			return false
		}
	}
	return true
}

func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// toolID is a tool-call id the API accepts: the id itself when it is
// one, else its letters, digits, _ and - with a hash of the whole id, so
// a call and its result (which pass through here alike) still match and
// two ids that differ only in their odd characters stay apart.
func toolID(id string) string {
	if validToolID(id) {
		return id
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(id)) // a hash never fails to write
	var b strings.Builder
	for _, r := range id {
		if r < 128 && idByte(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	return fmt.Sprintf("%s_%016x", b.String(), h.Sum64())
}
