package google

import (
	"encoding/json"
	"fmt"
	"strconv"

	"google.golang.org/genai"

	"github.com/troupehq/troupe/runtime/llm"
)

// decoder reads GenerateContentResponses, streamed or whole, into an
// Assembler and the continuation state.
type decoder struct {
	a        llm.Assembler
	st       state
	calls    int
	finish   genai.FinishReason
	finished bool
	usage    *genai.GenerateContentResponseUsageMetadata
}

// add reads one response. Only the first candidate counts: troupe never
// asks for more.
func (d *decoder) add(resp *genai.GenerateContentResponse) error {
	if d.a.ID == "" {
		d.a.ID = resp.ResponseID
	}
	if d.a.Model == "" {
		d.a.Model = resp.ModelVersion
	}
	if resp.UsageMetadata != nil {
		// Every chunk carries the running totals; the last is the answer's.
		d.usage = resp.UsageMetadata
	}
	if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
		// A refused prompt gets no candidate: the block reason is the
		// answer's finish, kept verbatim (SAFETY, PROHIBITED_CONTENT…).
		d.finish, d.finished = genai.FinishReason(pf.BlockReason), true
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return nil
	}
	cand := resp.Candidates[0]
	if cand.Content != nil {
		for _, p := range cand.Content.Parts {
			if err := d.part(p); err != nil {
				return err
			}
		}
	}
	if cand.FinishReason != "" {
		d.finish, d.finished = cand.FinishReason, true
	}
	return nil
}

func (d *decoder) part(p *genai.Part) error {
	if p == nil {
		return nil
	}
	switch {
	case p.FunctionCall != nil:
		// Gemini sends a call whole, in one part: one complete delta.
		args := []byte("{}")
		if len(p.FunctionCall.Args) > 0 {
			var err error
			if args, err = json.Marshal(p.FunctionCall.Args); err != nil {
				return &llm.Error{Type: llm.TypeInvalidResponse, Message: "function call arguments", Err: err}
			}
		}
		index := d.calls
		d.calls++
		d.st.Calls = append(d.st.Calls, callState{ID: p.FunctionCall.ID, Signature: p.ThoughtSignature})
		return d.a.ToolCall(index, d.callID(p.FunctionCall.ID, index), p.FunctionCall.Name, string(args))
	case p.Thought:
		if len(p.ThoughtSignature) > 0 {
			d.st.Thought = p.ThoughtSignature
		}
		return d.a.Text(llm.ChunkThinking, p.Text)
	default:
		if len(p.ThoughtSignature) > 0 {
			d.st.Text = p.ThoughtSignature
		}
		return d.a.Text(llm.ChunkText, p.Text)
	}
}

// callID is the id of the call at index: Gemini's when it sent one, else
// one made of the response's id and the index, the same each time the same
// answer is read, and unlike the Assembler's call_<index> not repeated
// turn after turn (clients key a session's tool calls by id). Without a
// response id the Assembler's is left to apply.
func (d *decoder) callID(geminiID string, index int) string {
	if geminiID != "" || d.a.ID == "" {
		return geminiID
	}
	return "call_" + d.a.ID + "_" + strconv.Itoa(index)
}

// flushUsage passes the answer's token accounting on, once, at its end.
// Thoughts are output the model was paid for, so they count as completion
// tokens; the cached part of the prompt is inside promptTokenCount.
func (d *decoder) flushUsage() error {
	u := d.usage
	if u == nil {
		return nil
	}
	out := llm.Usage{
		PromptTokens:     int(u.PromptTokenCount) + int(u.ToolUsePromptTokenCount),
		CompletionTokens: int(u.CandidatesTokenCount) + int(u.ThoughtsTokenCount),
		CachedTokens:     int(u.CachedContentTokenCount),
		TotalTokens:      int(u.TotalTokenCount),
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.PromptTokens + out.CompletionTokens
	}
	if err := d.a.SetUsage(out); err != nil {
		return fmt.Errorf("usage: %w", err)
	}
	return nil
}

// response is the assembled reply with its finish reason and continuation.
func (d *decoder) response() *llm.Response {
	d.a.Finish = finishReason(d.finish, d.calls > 0)
	return d.a.Response().WithContinuation(d.st.continuation())
}

// finishReason maps Gemini's reason. A turn that called functions says
// STOP; the engine needs tool_calls. Reasons with no llm equivalent
// (SAFETY, RECITATION, MALFORMED_FUNCTION_CALL…) are kept verbatim.
func finishReason(r genai.FinishReason, calls bool) llm.FinishReason {
	switch {
	case calls && (r == genai.FinishReasonStop || r == ""):
		return llm.FinishToolCalls
	case r == genai.FinishReasonStop:
		return llm.FinishStop
	case r == genai.FinishReasonMaxTokens:
		return llm.FinishLength
	}
	return llm.FinishReason(r)
}
