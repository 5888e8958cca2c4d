package openairesponses

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/troupehq/troupe/runtime/llm"
)

// reader reads one response's event stream into its Assembler and
// continuation. The delta events, nearly the whole stream, are decoded
// into delta; every other event into the SDK's type for its name, never
// into the SDK's all-events union (responses.ResponseStreamEventUnion),
// which decodes each delta into a struct with every field of every event
// and costs six times the CPU per delta (BenchmarkStreamDeltas beside
// BenchmarkStreamDeltasSDKUnion).
type reader struct {
	a llm.Assembler
	// items are the output items seen, by output_index.
	items map[int64]*item
	calls int // function calls seen, which gives each its ToolCallDelta index
	cont  continuation
	// thought says reasoning text has been passed on: a new summary part
	// starts a new paragraph.
	thought  bool
	finished bool
}

// delta is the part of a delta event the reader uses (output_text,
// refusal, reasoning summary and reasoning text, function call
// arguments). These events are nearly the whole stream, and decoding
// them into the SDK's own types, with their logprobs and field metadata,
// costs two and a half times the CPU and four times the allocations.
type delta struct {
	OutputIndex int64  `json:"output_index"`
	Delta       string `json:"delta"`
}

type item struct {
	kind string
	// call is the ToolCallDelta index of a function call.
	call int
	// streamed says deltas carried the item's text or arguments, so its
	// done event adds nothing.
	streamed bool
	done     bool
}

// read returns at the stream's terminal event, or with the error that
// ended it.
func (r *reader) read(ctx context.Context, dec ssestream.Decoder) error {
	if dec == nil {
		return cut(errNoTerminal)
	}
	done := ctx.Done()
	for dec.Next() {
		// The transport notices cancellation only when it next reads;
		// events already buffered would otherwise still reach the sink.
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		ev := dec.Event()
		if bytes.HasPrefix(ev.Data, doneMarker) {
			// Chat completions' end marker, which some servers also send
			// here: the terminal event should have come before it.
			break
		}
		if err := r.event(ev.Type, ev.Data); err != nil {
			return err
		}
		if r.finished {
			return nil
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := dec.Err(); err != nil {
		return cut(err)
	}
	return cut(errNoTerminal)
}

var doneMarker = []byte("[DONE]")

func cut(err error) *llm.Error {
	return &llm.Error{Type: llm.TypeStreamCut, Retryable: true, Err: fmt.Errorf("%w: %w", llm.ErrStreamCut, err)}
}

// event handles one event. Events this provider has no use for (content
// parts, the done events whose text the deltas already carried, hosted
// tools' progress) are skipped.
func (r *reader) event(name string, data []byte) error {
	if name == "" {
		// A server that leaves out the SSE event line still types its data.
		var t struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(data, &t); err != nil {
			return badEvent(data, err)
		}
		name = t.Type
	}
	switch name {
	case "response.output_text.delta", "response.refusal.delta":
		var e delta
		if err := decode(data, &e); err != nil {
			return err
		}
		r.streamed(e.OutputIndex)
		return r.a.Text(llm.ChunkText, e.Delta)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		var e delta
		if err := decode(data, &e); err != nil {
			return err
		}
		return r.thinking(e.OutputIndex, e.Delta)
	case "response.reasoning_summary_part.added":
		if r.thought {
			r.thought = false
			return r.a.Text(llm.ChunkThinking, "\n\n")
		}
		return nil
	case "response.function_call_arguments.delta":
		var e delta
		if err := decode(data, &e); err != nil {
			return err
		}
		it := r.items[e.OutputIndex]
		if it == nil || it.kind != itemFunctionCall {
			return nil
		}
		it.streamed = true
		return r.a.ToolCall(it.call, "", "", e.Delta)
	case "response.output_item.added":
		var e responses.ResponseOutputItemAddedEvent
		if err := decode(data, &e); err != nil {
			return err
		}
		return r.itemAdded(e.OutputIndex, e.Item)
	case "response.output_item.done":
		var e responses.ResponseOutputItemDoneEvent
		if err := decode(data, &e); err != nil {
			return err
		}
		return r.itemDone(e.OutputIndex, e.Item)
	case "response.created", "response.in_progress":
		var e responses.ResponseCreatedEvent
		if err := decode(data, &e); err != nil {
			return err
		}
		r.identify(e.Response)
		return nil
	case "response.completed":
		var e responses.ResponseCompletedEvent
		if err := decode(data, &e); err != nil {
			return err
		}
		return r.finish(e.Response)
	case "response.incomplete":
		var e responses.ResponseIncompleteEvent
		if err := decode(data, &e); err != nil {
			return err
		}
		return r.finish(e.Response)
	case "response.failed":
		var e responses.ResponseFailedEvent
		if err := decode(data, &e); err != nil {
			return err
		}
		return streamError(string(e.Response.Error.Code), e.Response.Error.Message)
	case "error":
		var e responses.ResponseErrorEvent
		if err := decode(data, &e); err != nil {
			return err
		}
		if e.Message == "" {
			// Some servers nest it: {"type":"error","error":{...}}.
			fe := llm.ParseErrorFrame(data)
			applyCode(fe, fe.Type)
			return fe
		}
		return streamError(e.Code, e.Message)
	}
	return nil
}

func (r *reader) thinking(index int64, delta string) error {
	r.streamed(index)
	if delta == "" {
		return nil
	}
	r.thought = true
	return r.a.Text(llm.ChunkThinking, delta)
}

// streamed marks the item at index as carried by deltas. A server that
// never announced it (no output_item.added) gets it made here, so that its
// done event does not add the text again.
func (r *reader) streamed(index int64) {
	it := r.items[index]
	if it == nil {
		if r.items == nil {
			r.items = make(map[int64]*item)
		}
		it = &item{}
		r.items[index] = it
	}
	it.streamed = true
}

func (r *reader) identify(resp responses.Response) {
	if r.a.ID == "" {
		r.a.ID = resp.ID
	}
	if r.a.Model == "" {
		r.a.Model = resp.Model
	}
}

func decode(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return badEvent(data, err)
	}
	return nil
}

func badEvent(data []byte, err error) *llm.Error {
	const quote = 200
	return &llm.Error{Type: llm.TypeInvalidResponse, Message: "bad event: " + string(data[:min(len(data), quote)]), Err: err}
}
