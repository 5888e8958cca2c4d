package openai

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/troupehq/troupe/runtime/llm"
)

// maxErrorBody bounds how much of an error answer is read: enough for any
// JSON error, small enough that a misbehaving proxy cannot exhaust memory.
const maxErrorBody = 1 << 20

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

// readHTTPError turns a non-2xx answer into a classified *llm.Error.
func readHTTPError(resp *http.Response) *llm.Error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := parseError(resp.StatusCode, body)
	if err != nil && e.Message == "" {
		e.Err = err
	}
	return e
}

// parseError reads an error body in the OpenAI shape
// {"error":{"code","message","type"}} (keys in any order, code a number or
// a string), or a bare {"error":"text"}, or anything else as plain text.
// status is the HTTP status, or 0 for an error frame inside a stream, in
// which case the frame's numeric code stands in for it.
func parseError(status int, body []byte) *llm.Error {
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
		msg = string(truncate(bytes.TrimSpace(body), 512))
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
	e := llm.HTTPError(status, typ, msg)
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

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
