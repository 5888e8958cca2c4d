package anthropic

import (
	"context"
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/troupehq/troupe/runtime/llm"
)

// reader turns the event stream into chunks, and keeps the content blocks
// in order for the reply's continuation.
type reader struct {
	api string
	a   llm.Assembler
	// started: an event arrived, so a failure after it cut a reply short.
	started bool
	// done: message_stop arrived.
	done   bool
	blocks []block
	// open maps a stream's block index to the block's place in blocks.
	open  map[int64]int
	calls int
	usage llm.Usage
}

// sinkError carries the sink's error past the stream's own, so Stream
// returns it as the contract says rather than classifying it.
type sinkError struct{ err error }

func (e *sinkError) Error() string { return e.err.Error() }

func (r *reader) sink(err error) error {
	if err == nil {
		return nil
	}
	return &sinkError{err}
}

func (r *reader) read(ctx context.Context, stream *ssestream.Stream[sdk.MessageStreamEventUnion]) error {
	for stream.Next() {
		r.started = true
		if err := r.event(stream.Current()); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return stream.Err()
}

func (r *reader) event(ev sdk.MessageStreamEventUnion) error {
	switch ev.Type {
	case "message_start":
		m := ev.Message
		r.a.ID, r.a.Model = m.ID, string(m.Model)
		r.usage = llm.Usage{
			PromptTokens:     int(m.Usage.InputTokens + m.Usage.CacheReadInputTokens + m.Usage.CacheCreationInputTokens),
			CompletionTokens: int(m.Usage.OutputTokens),
			CachedTokens:     int(m.Usage.CacheReadInputTokens),
			CacheWriteTokens: int(m.Usage.CacheCreationInputTokens),
		}
	case "content_block_start":
		return r.start(ev.Index, ev.ContentBlock)
	case "content_block_delta":
		return r.delta(ev.Index, ev.Delta)
	case "content_block_stop":
		return r.stop(ev.Index)
	case "message_delta":
		if ev.Delta.StopReason != "" {
			r.a.Finish = finishReason(string(ev.Delta.StopReason))
		}
		r.deltaUsage(ev.Usage)
		u := r.usage
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
		return r.sink(r.a.SetUsage(u))
	case "message_stop":
		r.done = true
	}
	return nil
}

func (r *reader) start(index int64, cb sdk.ContentBlockStartEventContentBlockUnion) error {
	if r.open == nil {
		r.open = make(map[int64]int, 4)
	}
	b := block{Type: cb.Type}
	switch cb.Type {
	case "text":
		b.text = append(b.text, cb.Text...)
	case "thinking":
		b.text, b.Signature = append(b.text, cb.Thinking...), cb.Signature
	case "redacted_thinking":
		b.Data = cb.Data
	case "tool_use":
		b.ID, b.Name, b.call = cb.ID, cb.Name, r.calls
		r.calls++
		if err := r.sink(r.a.ToolCall(b.call, cb.ID, cb.Name, "")); err != nil {
			return err
		}
	default:
		// Server tools and the like: nothing this runtime asked for.
		return nil
	}
	r.open[index] = len(r.blocks)
	r.blocks = append(r.blocks, b)
	// A block may start with content of its own.
	switch cb.Type {
	case "text":
		return r.sink(r.a.Text(llm.ChunkText, cb.Text))
	case "thinking":
		return r.sink(r.a.Text(llm.ChunkThinking, cb.Thinking))
	}
	return nil
}

func (r *reader) delta(index int64, d sdk.MessageStreamEventUnionDelta) error {
	i, ok := r.open[index]
	if !ok {
		return nil
	}
	b := &r.blocks[i]
	switch d.Type {
	case "text_delta":
		b.text = append(b.text, d.Text...)
		return r.sink(r.a.Text(llm.ChunkText, d.Text))
	case "thinking_delta":
		b.text = append(b.text, d.Thinking...)
		return r.sink(r.a.Text(llm.ChunkThinking, d.Thinking))
	case "signature_delta":
		b.Signature += d.Signature
	case "input_json_delta":
		if d.PartialJSON == "" {
			return nil
		}
		b.input = append(b.input, d.PartialJSON...)
		return r.sink(r.a.ToolCall(b.call, "", "", d.PartialJSON))
	}
	return nil
}

// stop ends a block. A tool call whose input never came has the empty
// object content_block_start gave it.
func (r *reader) stop(index int64) error {
	i, ok := r.open[index]
	if !ok {
		return nil
	}
	delete(r.open, index)
	b := &r.blocks[i]
	if b.Type != "tool_use" {
		return nil
	}
	if len(b.input) == 0 {
		b.input = append(b.input, "{}"...)
		if err := r.sink(r.a.ToolCall(b.call, "", "", "{}")); err != nil {
			return err
		}
	}
	b.Input = json.RawMessage(b.input)
	return nil
}

// deltaUsage takes message_delta's counts: output tokens always (they are
// cumulative), the input counts only where the event carries them.
func (r *reader) deltaUsage(u sdk.MessageDeltaUsage) {
	r.usage.CompletionTokens = int(u.OutputTokens)
	read, write, in := r.usage.CachedTokens, r.usage.CacheWriteTokens, r.usage.PromptTokens-r.usage.CachedTokens-r.usage.CacheWriteTokens
	if u.JSON.CacheReadInputTokens.Valid() {
		read = int(u.CacheReadInputTokens)
	}
	if u.JSON.CacheCreationInputTokens.Valid() {
		write = int(u.CacheCreationInputTokens)
	}
	if u.JSON.InputTokens.Valid() {
		in = int(u.InputTokens)
	}
	r.usage.PromptTokens = in + read + write
	r.usage.CachedTokens, r.usage.CacheWriteTokens = read, write
}

// response is the assembled reply, with the usage and, when the reply
// reasoned, the continuation that sends its blocks back as they came.
func (r *reader) response() *llm.Response {
	out := r.a.Response()
	if c := r.continuation(); c != nil {
		out.WithContinuation(c)
	}
	return out
}

func finishReason(stop string) llm.FinishReason {
	switch stop {
	case "end_turn":
		return llm.FinishStop
	case "max_tokens":
		return llm.FinishLength
	case "tool_use":
		return llm.FinishToolCalls
	}
	return llm.FinishReason(stop)
}
