package llmserver

import (
	"context"
	"net/http"
	"strings"
)

// complete writes the reply as one non-streaming chat.completion. Delays
// still happen, so a client's request timeout can be tested; keep-alives
// have no meaning here and are skipped.
func (x *exchange) complete(ctx context.Context) Outcome {
	var (
		content, reasoning strings.Builder
		calls              []toolCallJSON
	)
	for _, a := range x.p.actions {
		if ctx.Err() != nil {
			return OutcomeCanceled
		}
		switch a.kind {
		case actDelay:
			if sleep(ctx, a.delay) != nil {
				return OutcomeCanceled
			}
		case actContent:
			content.WriteString(a.text)
		case actTokens:
			for range a.count {
				content.WriteString(a.text)
			}
		case actReasoning:
			reasoning.WriteString(a.text)
		case actToolStart:
			calls = append(calls, toolCallJSON{Type: "function", Function: functionJSON{Name: a.name}, ID: a.id})
		case actToolArgs:
			calls[a.tool].Function.Arguments += a.text
		case actHTTPError, actStreamError:
			x.s.writeError(x.w, a.err)
			return OutcomeHTTPError
		case actDisconnect:
			return x.cut()
		case actKeepAlive, actFinish:
		}
	}
	msg := message{Role: "assistant", ReasoningContent: reasoning.String()}
	// llama-server sends "content":null only for a pure tool-call message.
	if text := content.String(); text != "" || len(calls) == 0 {
		msg.Content = &text
	}
	msg.ToolCalls = calls
	body := completion{
		Choices:           []completionChoice{{FinishReason: x.p.finish, Message: msg}},
		Created:           x.created,
		Model:             x.model,
		SystemFingerprint: systemFingerprint,
		Object:            "chat.completion",
		ID:                x.id,
	}
	if u := x.p.usage; u != nil {
		body.Usage, body.Timings = u.wire(), u.timings()
	}
	b, err := marshal(body)
	if err != nil {
		return x.s.fail(x.w, APIError{Status: http.StatusInternalServerError, Message: err.Error()}).outcome
	}
	writeJSON(x.w, http.StatusOK, b, false)
	return OutcomeOK
}
