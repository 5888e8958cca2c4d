package openairesponses

import (
	"encoding/json"

	"github.com/openai/openai-go/v3/responses"

	"github.com/troupehq/troupe/runtime/llm"
)

// itemAdded starts an output item; a function call's first chunk carries
// its call_id and name.
func (r *reader) itemAdded(index int64, u responses.ResponseOutputItemUnion) error {
	if r.items == nil {
		r.items = make(map[int64]*item)
	}
	it := &item{kind: u.Type}
	r.items[index] = it
	if u.Type != itemFunctionCall {
		return nil
	}
	fc := u.AsFunctionCall()
	it.call = r.calls
	r.calls++
	it.streamed = fc.Arguments != ""
	return r.a.ToolCall(it.call, fc.CallID, fc.Name, fc.Arguments)
}

// itemDone completes an output item: it records it in the continuation,
// in output order, and passes on what no delta carried (a server that
// streams only whole items).
func (r *reader) itemDone(index int64, u responses.ResponseOutputItemUnion) error {
	it := r.items[index]
	if it == nil {
		if err := r.itemAdded(index, u); err != nil {
			return err
		}
		it = r.items[index]
	}
	if it.done {
		return nil
	}
	it.done = true
	switch u.Type {
	case itemReasoning:
		rs := u.AsReasoning()
		ci := contItem{Type: itemReasoning, EncryptedContent: rs.EncryptedContent}
		for _, s := range rs.Summary {
			ci.Summary = append(ci.Summary, s.Text)
		}
		r.cont.Output = append(r.cont.Output, ci)
		if !it.streamed {
			for _, s := range rs.Summary {
				if err := r.thinking(index, s.Text); err != nil {
					return err
				}
			}
		}
	case itemMessage:
		r.cont.Output = append(r.cont.Output, contItem{Type: itemMessage})
		if it.streamed {
			return nil
		}
		for _, c := range u.AsMessage().Content {
			if err := r.a.Text(llm.ChunkText, c.Text+c.Refusal); err != nil {
				return err
			}
		}
	case itemFunctionCall:
		fc := u.AsFunctionCall()
		args := ""
		if !it.streamed {
			args = fc.Arguments
		}
		if err := r.a.ToolCall(it.call, fc.CallID, fc.Name, args); err != nil {
			return err
		}
		id := fc.CallID
		if id == "" {
			id = llm.GeneratedCallID(it.call)
		}
		r.cont.Output = append(r.cont.Output, contItem{Type: itemFunctionCall, CallID: id})
	}
	return nil
}

// finish ends the reply at response.completed or response.incomplete:
// output items no event brought (a server that sends only the final
// response), the usage and why it stopped.
func (r *reader) finish(resp responses.Response) error {
	r.identify(resp)
	for i, u := range resp.Output {
		if it := r.items[int64(i)]; it == nil || !it.done {
			if err := r.itemDone(int64(i), u); err != nil {
				return err
			}
		}
	}
	r.finished = true
	switch {
	case resp.Status == responses.ResponseStatusIncomplete:
		switch reason := resp.IncompleteDetails.Reason; reason {
		case "max_output_tokens":
			r.a.Finish = llm.FinishLength
		case "content_filter":
			r.a.Finish = llm.FinishContentFilter
		default:
			r.a.Finish = llm.FinishReason(reason)
		}
	case r.calls > 0:
		r.a.Finish = llm.FinishToolCalls
	default:
		r.a.Finish = llm.FinishStop
	}
	if !resp.JSON.Usage.Valid() {
		return nil
	}
	u := resp.Usage
	// input_tokens counts the cached and the newly cached ones, as
	// llm.Usage.PromptTokens does; output_tokens counts the reasoning
	// tokens (output_tokens_details.reasoning_tokens), which are billed
	// as output.
	return r.a.SetUsage(llm.Usage{
		PromptTokens:     int(u.InputTokens),
		CompletionTokens: int(u.OutputTokens),
		TotalTokens:      int(u.TotalTokens),
		CachedTokens:     int(u.InputTokensDetails.CachedTokens),
		CacheWriteTokens: int(u.InputTokensDetails.CacheWriteTokens),
	})
}

// response is the assembled reply, with the continuation when the model
// reasoned in a form that can be sent back.
func (r *reader) response() *llm.Response {
	resp := r.a.Response()
	if !r.cont.hasReasoning() {
		return resp
	}
	data, err := json.Marshal(r.cont)
	if err != nil {
		return resp // strings only: cannot happen
	}
	return resp.WithContinuation(&llm.Continuation{Provider: API, Data: data})
}
