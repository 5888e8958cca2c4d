package llmserver

import (
	"context"
	"fmt"
	"net/http"
)

// stream writes the reply as llama-server's SSE. Any write error means the
// client is gone, so it ends the reply as canceled.
func (x *exchange) stream(ctx context.Context) Outcome {
	finished := false
	for _, a := range x.p.actions {
		if ctx.Err() != nil {
			return OutcomeCanceled
		}
		switch a.kind {
		case actDelay:
			if sleep(ctx, a.delay) != nil {
				return OutcomeCanceled
			}
			continue
		case actHTTPError:
			x.s.writeError(x.w, a.err)
			return OutcomeHTTPError
		case actDisconnect:
			return x.cut()
		}
		if err := x.begin(); err != nil {
			return OutcomeCanceled
		}
		var err error
		switch a.kind {
		case actKeepAlive:
			err = x.write([]byte(":\n\n"))
		case actContent:
			err = x.delta(contentDelta{Content: a.text})
		case actTokens:
			for range a.count {
				if err = x.delta(contentDelta{Content: a.text}); err != nil {
					break
				}
			}
		case actReasoning:
			err = x.delta(reasoningDelta{ReasoningContent: a.text})
		case actToolStart:
			d := toolCallDelta{Index: a.tool, ID: a.id, Function: functionDelta{Name: a.name}}
			if a.id != "" {
				d.Type = "function"
			}
			err = x.delta(toolDelta{ToolCalls: []toolCallDelta{d}})
		case actToolArgs:
			err = x.delta(toolDelta{ToolCalls: []toolCallDelta{{Index: a.tool, Function: functionDelta{Arguments: a.text}}}})
		case actFinish:
			finished = true
			err = x.finish()
		case actStreamError:
			if err = x.streamError(a.err); err == nil {
				return OutcomeStreamError
			}
		}
		if err != nil {
			return OutcomeCanceled
		}
	}
	if err := x.begin(); err != nil {
		return OutcomeCanceled
	}
	if !finished {
		if err := x.finish(); err != nil {
			return OutcomeCanceled
		}
	}
	if err := x.write([]byte("data: [DONE]\n\n")); err != nil {
		return OutcomeCanceled
	}
	return OutcomeOK
}

// begin sends the headers and the role chunk, once.
func (x *exchange) begin() error {
	if x.started {
		return nil
	}
	x.started = true
	h := x.w.Header()
	setServerHeaders(h)
	h.Set("X-Accel-Buffering", "no")
	h.Set("Content-Type", "text/event-stream")
	x.w.WriteHeader(http.StatusOK)
	return x.delta(roleDelta{Role: "assistant"})
}

func (x *exchange) base() chunk {
	return chunk{
		Created:           x.created,
		ID:                x.id,
		Model:             x.model,
		SystemFingerprint: systemFingerprint,
		Object:            "chat.completion.chunk",
	}
}

func (x *exchange) delta(d any) error {
	c := x.base()
	c.Choices = []chunkChoice{{Delta: d}}
	return x.chunk(c)
}

// finish sends the finish chunk and, when the usage goes apart, the
// "choices":[] usage chunk right after it, as llama-server does.
func (x *exchange) finish() error {
	reason := x.p.finish
	c := x.base()
	c.Choices = []chunkChoice{{FinishReason: &reason, Delta: emptyDelta{}}}
	u := x.p.usage
	separate := false
	if u != nil {
		switch {
		case u.On == UsageOnFinish:
			c.Usage, c.Timings = u.wire(), u.timings()
		case u.On == UsageSeparate || x.includeUsage:
			separate = true
		default:
			c.Timings = u.timings()
		}
	}
	if err := x.chunk(c); err != nil {
		return err
	}
	if !separate {
		return nil
	}
	c = x.base()
	c.Choices = []chunkChoice{}
	c.Usage, c.Timings = u.wire(), u.timings()
	return x.chunk(c)
}

func (x *exchange) streamError(e APIError) error {
	body, err := e.body(false)
	if err != nil {
		return err
	}
	return x.frame(body)
}

func (x *exchange) chunk(c chunk) error {
	b, err := marshal(c)
	if err != nil {
		return err
	}
	return x.frame(b)
}

func (x *exchange) frame(payload []byte) error {
	b := make([]byte, 0, len(payload)+8)
	b = append(b, "data: "...)
	b = append(b, payload...)
	b = append(b, "\n\n"...)
	return x.write(b)
}

// write flushes every frame so the client sees each step when it happens.
func (x *exchange) write(b []byte) error {
	if _, err := x.w.Write(b); err != nil {
		return fmt.Errorf("write stream: %w", err)
	}
	if err := x.rc.Flush(); err != nil {
		return fmt.Errorf("flush stream: %w", err)
	}
	return nil
}
