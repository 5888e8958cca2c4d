package llm

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// maxPlainMessage bounds the Message made of an error body that is not
// JSON: an HTML error page from a proxy says nothing useful past its start.
const maxPlainMessage = 512

type errorEnvelope struct {
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
}

type errorBody struct {
	Code          json.RawMessage `json:"code"`
	Message       string          `json:"message"`
	Type          string          `json:"type"`
	NPromptTokens int             `json:"n_prompt_tokens"`
	NCtx          int             `json:"n_ctx"`
}

// deterministic500 are llama-server answers sent with status 500 that no
// retry can fix: the request itself is wrong (old builds answer 500 where
// new ones answer 400).
var deterministic500 = []string{
	"Cannot use tools with stream",
	"[json.exception.parse_error",
	"Failed to parse messages",
}

// ParseErrorBody classifies an error answer in the shape OpenAI-compatible
// servers share, so that every provider and every fake of one reads it the
// same way. It accepts {"error":{"code","message","type"}} (keys in any
// order, code a number or a string, llama-server's n_prompt_tokens and n_ctx
// beside them), a bare {"error":"text"}, a top-level {"message":"text"}, or
// anything else as plain text. status is the HTTP status; when it is 0 (an
// error frame inside a stream) or 200 (an error document sent as success)
// the body's numeric code stands in for it.
func ParseErrorBody(status int, body []byte) *Error {
	var env errorEnvelope
	var eb errorBody
	msg := ""
	if json.Unmarshal(body, &env) == nil {
		switch {
		case len(env.Error) > 0 && env.Error[0] == '{':
			if json.Unmarshal(env.Error, &eb) == nil {
				msg = eb.Message
			}
		case len(env.Error) > 0 && env.Error[0] == '"':
			_ = json.Unmarshal(env.Error, &msg)
		default:
			msg = env.Message
		}
	} else {
		plain := bytes.TrimSpace(body)
		msg = string(plain[:min(len(plain), maxPlainMessage)])
	}
	typ := eb.Type
	var code any
	if len(eb.Code) > 0 && json.Unmarshal(eb.Code, &code) == nil {
		switch c := code.(type) {
		case float64:
			if status == 0 || status == http.StatusOK {
				status = int(c)
			}
		case string:
			if typ == "" {
				typ = c
			}
		}
	}
	if msg == "" && status != 0 {
		msg = strings.ToLower(http.StatusText(status))
	}
	e := HTTPError(status, typ, msg)
	e.PromptTokens, e.ContextSize = eb.NPromptTokens, eb.NCtx
	if status == http.StatusInternalServerError {
		for _, m := range deterministic500 {
			if strings.Contains(msg, m) {
				e.Retryable = false
			}
		}
	}
	return e
}

// ParseErrorFrame classifies an error frame met inside a stream. The request
// was accepted before it came, so it was not malformed: unless the frame
// says otherwise (a numeric code, a context overflow) it is treated as a
// server failure worth a retry.
func ParseErrorFrame(data []byte) *Error {
	e := ParseErrorBody(0, data)
	if e.Status == 0 && !e.ContextOverflow {
		e.Retryable = true
	}
	return e
}
