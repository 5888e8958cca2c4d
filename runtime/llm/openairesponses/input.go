package openairesponses

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/troupehq/troupe/runtime/llm"
)

// newInput turns the conversation into the instructions (the system
// messages it starts with) and the input items.
func newInput(msgs []llm.Message) (string, responses.ResponseInputParam, error) {
	var system []string
	for len(msgs) > 0 && msgs[0].Role == llm.RoleSystem {
		system = append(system, msgs[0].Content)
		msgs = msgs[1:]
	}
	b := inputBuilder{items: make(responses.ResponseInputParam, 0, len(msgs)+1)}
	for i, m := range msgs {
		switch m.Role {
		case llm.RoleSystem:
			b.items = append(b.items, textMessage(responses.EasyInputMessageRoleSystem, m.Content))
		case llm.RoleUser:
			b.items = append(b.items, userMessage(m))
		case llm.RoleAssistant:
			b.assistant(m)
		case llm.RoleTool:
			b.toolResult(m)
		default:
			return "", nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return strings.Join(system, "\n\n"), b.items, nil
}

// inputBuilder keeps what spans messages: call ids invented for calls that
// came without one (a history from another provider may have them), handed
// in order to the results that name none, so every function_call_output
// still answers a function_call as the API requires.
type inputBuilder struct {
	items    responses.ResponseInputParam
	invented []string
	next     int
}

// assistant adds an assistant message: its own continuation's reasoning
// items in the order the model produced them, the text and the calls.
// Another provider's continuation is dropped, and so is plain thinking
// text, which the API takes back only encrypted.
func (b *inputBuilder) assistant(m llm.Message) {
	calls := make([]llm.ToolCall, len(m.ToolCalls))
	for i, tc := range m.ToolCalls {
		if tc.ID == "" {
			tc.ID = "call_" + strconv.Itoa(len(b.invented))
			b.invented = append(b.invented, tc.ID)
		}
		calls[i] = tc
	}
	start := len(b.items)
	placed := make([]bool, len(calls))
	textPlaced := false
	var cont continuation
	if data := m.Continuation.For(API); data != nil {
		// A continuation that does not decode is dropped like a foreign
		// one: the turn is still valid without its reasoning.
		cont, _ = decodeContinuation(data)
	}
	for _, it := range cont.Output {
		switch it.Type {
		case itemReasoning:
			if it.EncryptedContent != "" {
				b.items = append(b.items, reasoningItem(it))
			}
		case itemMessage:
			if !textPlaced && m.Content != "" {
				b.items = append(b.items, textMessage(responses.EasyInputMessageRoleAssistant, m.Content))
				textPlaced = true
			}
		case itemFunctionCall:
			for i, tc := range calls {
				if !placed[i] && tc.ID == it.CallID {
					b.items = append(b.items, functionCall(tc))
					placed[i] = true
					break
				}
			}
		}
	}
	if !textPlaced && m.Content != "" {
		b.items = append(b.items, textMessage(responses.EasyInputMessageRoleAssistant, m.Content))
	}
	for i, tc := range calls {
		if !placed[i] {
			b.items = append(b.items, functionCall(tc))
		}
	}
	// A reasoning item must be followed by the item it led to: one that
	// ended the turn (a reply cut at its length limit) is dropped.
	for len(b.items) > start && b.items[len(b.items)-1].OfReasoning != nil {
		b.items = b.items[:len(b.items)-1]
	}
}

// toolResult adds a tool message as a function_call_output.
func (b *inputBuilder) toolResult(m llm.Message) {
	id := m.ToolCallID
	if id == "" && b.next < len(b.invented) {
		id = b.invented[b.next]
		b.next++
	}
	out := responses.ResponseInputItemFunctionCallOutputParam{CallID: param.NewOpt(id)}
	if len(m.Images) == 0 {
		out.Output.OfString = param.NewOpt(m.Content)
	} else {
		list := make(responses.ResponseFunctionCallOutputItemListParam, 0, len(m.Images)+1)
		if m.Content != "" {
			list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{
				OfInputText: &responses.ResponseInputTextContentParam{Text: m.Content}})
		}
		for _, img := range m.Images {
			list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{
				OfInputImage: &responses.ResponseInputImageContentParam{ImageURL: param.NewOpt(dataURL(img))}})
		}
		out.Output.OfResponseFunctionCallOutputItemArray = list
	}
	b.items = append(b.items, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &out})
}

func textMessage(role responses.EasyInputMessageRole, text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
		Role:    role,
		Content: responses.EasyInputMessageContentUnionParam{OfString: param.NewOpt(text)},
	}}
}

func userMessage(m llm.Message) responses.ResponseInputItemUnionParam {
	if len(m.Images) == 0 {
		return textMessage(responses.EasyInputMessageRoleUser, m.Content)
	}
	parts := make(responses.ResponseInputMessageContentListParam, 0, len(m.Images)+1)
	if m.Content != "" {
		parts = append(parts, responses.ResponseInputContentUnionParam{
			OfInputText: &responses.ResponseInputTextParam{Text: m.Content}})
	}
	for _, img := range m.Images {
		parts = append(parts, responses.ResponseInputContentUnionParam{
			OfInputImage: &responses.ResponseInputImageParam{
				Detail:   responses.ResponseInputImageDetailAuto,
				ImageURL: param.NewOpt(dataURL(img)),
			}})
	}
	return responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
		Role:    responses.EasyInputMessageRoleUser,
		Content: responses.EasyInputMessageContentUnionParam{OfInputItemContentList: parts},
	}}
}

func dataURL(img llm.Image) string { return "data:" + img.MIMEType + ";base64," + img.Data }

// functionCall sends a call back without its item id (fc_...): with
// store=false the server keeps no item to refer to, and the call_id is
// what its output answers.
func functionCall(tc llm.ToolCall) responses.ResponseInputItemUnionParam {
	args := tc.Arguments
	if args == "" {
		args = "{}"
	}
	return responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
		CallID: tc.ID, Name: tc.Name, Arguments: args,
	}}
}

// reasoningItem sends a reasoning item back with its summary and encrypted
// content and without its id (rs_...), as stateless clients do: with
// store=false an id names nothing the server kept, while the SDK's param
// type would send an empty one.
func reasoningItem(it contItem) responses.ResponseInputItemUnionParam {
	type summary struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	raw := struct {
		Type             string    `json:"type"`
		Summary          []summary `json:"summary"`
		EncryptedContent string    `json:"encrypted_content"`
	}{Type: itemReasoning, Summary: make([]summary, len(it.Summary)), EncryptedContent: it.EncryptedContent}
	for i, s := range it.Summary {
		raw.Summary[i] = summary{Type: "summary_text", Text: s}
	}
	b, _ := json.Marshal(raw) // strings only: cannot fail
	p := param.Override[responses.ResponseReasoningItemParam](json.RawMessage(b))
	return responses.ResponseInputItemUnionParam{OfReasoning: &p}
}
