package llmserver

import (
	"context"
	"strings"

	"github.com/troupehq/troupe/runtime/llm"
)

// playback is one reply being played to a Provider's caller.
type playback struct {
	ctx  context.Context
	plan plan
	asm  llm.Assembler
}

// stream plays the reply as the openai client reads it from the SSE that
// Server.stream writes: every action that would write a frame starts the
// response (so a later disconnect cuts a stream rather than a request), and
// the client always asks for stream_options.include_usage.
func (pb *playback) stream() error {
	done := pb.ctx.Done()
	started, finished := false, false
	for i := range pb.plan.actions {
		a := &pb.plan.actions[i]
		if canceled(done) {
			return pb.ctx.Err()
		}
		switch a.kind {
		case actDelay:
			if err := sleep(pb.ctx, a.delay); err != nil {
				return err
			}
			continue
		case actHTTPError:
			return httpFailure(a.err)
		case actDisconnect:
			if !started {
				return noResponse()
			}
			return cutStream()
		case actStreamError:
			return streamFailure(a.err)
		}
		started = true
		var err error
		switch a.kind {
		case actContent:
			err = pb.asm.Text(llm.ChunkText, a.text)
		case actTokens:
			if err := pb.tokens(a.text, a.count); err != nil {
				return err
			}
		case actReasoning:
			err = pb.asm.Text(llm.ChunkThinking, a.text)
		case actToolStart:
			err = pb.asm.ToolCall(a.tool, a.id, a.name, "")
		case actToolArgs:
			err = pb.asm.ToolCall(a.tool, "", "", a.text)
		case actFinish:
			finished = true
			err = pb.finish()
		case actKeepAlive:
		}
		if err != nil {
			return err
		}
	}
	if !finished {
		if err := pb.finish(); err != nil {
			return err
		}
	}
	// The client looks at ctx once more when it reads [DONE].
	if canceled(done) {
		return pb.ctx.Err()
	}
	return nil
}

// tokens is the tight loop behind Tokens: per delta, one cancellation check
// and one sink call, nothing allocated but the amortised growth of the
// assembled content.
func (pb *playback) tokens(text string, n int) error {
	if text == "" {
		return nil
	}
	done := pb.ctx.Done()
	for range n {
		if canceled(done) {
			return pb.ctx.Err()
		}
		if err := pb.asm.Text(llm.ChunkText, text); err != nil {
			return err
		}
	}
	return nil
}

// finish is the finish chunk and, when the reply reports usage, the usage
// the client reads from it or from the chunk after it.
func (pb *playback) finish() error {
	pb.asm.Finish = llm.FinishReason(pb.plan.finish)
	if u := pb.plan.usage; u != nil {
		return pb.asm.SetUsage(llmUsage(*u))
	}
	return nil
}

// complete plays the reply as the openai client reads the one document
// Server.complete writes: delays happen first, errors of any kind become
// HTTP errors, and the content reaches the sink at the end, one chunk per
// kind and one per tool call.
func (pb *playback) complete() error {
	var (
		content, reasoning strings.Builder
		calls              []toolCallJSON
	)
	for i := range pb.plan.actions {
		a := &pb.plan.actions[i]
		if err := pb.ctx.Err(); err != nil {
			return err
		}
		switch a.kind {
		case actDelay:
			if err := sleep(pb.ctx, a.delay); err != nil {
				return err
			}
		case actContent:
			content.WriteString(a.text)
		case actTokens:
			content.WriteString(strings.Repeat(a.text, a.count))
		case actReasoning:
			reasoning.WriteString(a.text)
		case actToolStart:
			calls = append(calls, toolCallJSON{ID: a.id, Function: functionJSON{Name: a.name}})
		case actToolArgs:
			if a.tool < len(calls) {
				calls[a.tool].Function.Arguments += a.text
			}
		case actHTTPError, actStreamError:
			return httpFailure(a.err)
		case actDisconnect:
			return noResponse()
		case actKeepAlive, actFinish:
		}
	}
	if err := pb.ctx.Err(); err != nil {
		return err
	}
	if err := pb.asm.Text(llm.ChunkThinking, reasoning.String()); err != nil {
		return err
	}
	if err := pb.asm.Text(llm.ChunkText, content.String()); err != nil {
		return err
	}
	for i, c := range calls {
		if err := pb.asm.ToolCall(i, c.ID, c.Function.Name, c.Function.Arguments); err != nil {
			return err
		}
	}
	return pb.finish()
}

// llmUsage is what the client reads from Usage.wire.
func llmUsage(u Usage) llm.Usage {
	w := u.wire()
	return llm.Usage{
		PromptTokens:     w.PromptTokens,
		CompletionTokens: w.CompletionTokens,
		TotalTokens:      w.TotalTokens,
		CachedTokens:     w.PromptTokensDetails.CachedTokens,
	}
}

// canceled polls done without blocking; a nil done (a context that cannot
// be canceled) costs nothing.
func canceled(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}
