package openai

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/troupehq/troupe/runtime/jsontext"
	"github.com/troupehq/troupe/runtime/llm"
)

// decodeStream reads an event stream of chat.completion.chunk frames into a.
// It returns at [DONE], at an error frame, or when the body ends; a body
// that ends before [DONE] is complete only if a finish reason was seen.
func decodeStream(ctx context.Context, body io.Reader, a *llm.Assembler, maxLine int) error {
	sse := newSSEReader(body, maxLine)
	var (
		s      jsontext.Scanner
		f      frame
		finish bool
	)
	done := ctx.Done()
	for {
		data, err := sse.next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, errLineTooLong) {
				return &llm.Error{Type: llm.TypeInvalidResponse, Err: err}
			}
			if errors.Is(err, io.EOF) {
				if finish {
					return nil
				}
				return &llm.Error{Type: llm.TypeStreamCut, Retryable: true, Err: llm.ErrStreamCut}
			}
			return &llm.Error{Type: llm.TypeStreamCut, Retryable: true,
				Err: fmt.Errorf("%w: %w", llm.ErrStreamCut, err)}
		}
		// The transport notices cancellation only when it next reads; frames
		// already buffered would otherwise still reach the sink.
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		if string(data) == "[DONE]" {
			return nil
		}
		if err := parseFrame(&s, data, &f); err != nil {
			return &llm.Error{Type: llm.TypeInvalidResponse,
				Message: "bad event-stream frame: " + string(truncate(data, 200)), Err: err}
		}
		if f.hasError {
			return llm.ParseErrorFrame(data)
		}
		if err := applyFrame(a, &f); err != nil {
			return err
		}
		finish = finish || f.hasFinish
	}
}

// applyFrame adds one frame to a. The id and model kept are the first ones
// seen; the finish reason and usage, the last.
func applyFrame(a *llm.Assembler, f *frame) error {
	if a.ID == "" && len(f.id) > 0 {
		a.ID = string(f.id)
	}
	if a.Model == "" && len(f.model) > 0 {
		a.Model = string(f.model)
	}
	for i := range f.parts {
		p := &f.parts[i]
		var err error
		if p.kind == llm.ChunkToolCall {
			err = a.ToolCallBytes(p.index, p.id, p.name, p.text)
		} else {
			err = a.TextBytes(p.kind, p.text)
		}
		if err != nil {
			return err
		}
	}
	if f.hasFinish {
		a.Finish = llm.FinishReason(f.finish)
	}
	if f.hasUsage {
		return a.SetUsage(f.usage)
	}
	return nil
}
