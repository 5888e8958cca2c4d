package llmserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/troupehq/troupe/runtime/llm"
)

// The errors below are the ones runtime/llm/openai makes of the server's
// failures. Its parser is unexported, so it is mirrored here on the very
// bytes the server would send; the equivalence tests hold the two together.

// providerURL names the request in the errors that need a URL.
const providerURL = "llmserver:/v1/chat/completions"

// httpFailure is what the client makes of Server.writeError(e).
func httpFailure(e APIError) *llm.Error {
	body, err := e.body(true)
	if err != nil {
		// As in writeError: compile rejects the bad extras that get here.
		e = APIError{Status: http.StatusInternalServerError, Message: err.Error()}
		body, _ = e.body(true)
	}
	return clientError(e.code(), body)
}

// streamFailure is what the client makes of an error frame: the request
// was accepted, so without a code saying otherwise it is a server failure
// worth a retry.
func streamFailure(e APIError) *llm.Error {
	body, err := e.body(false)
	if err != nil {
		e = APIError{Status: http.StatusInternalServerError, Message: err.Error()}
		body, _ = e.body(false)
	}
	le := clientError(0, body)
	if le.Status == 0 && !le.ContextOverflow {
		le.Retryable = true
	}
	return le
}

// noResponse is a disconnect before the response began: the client's
// http.Client.Do fails with EOF, a retryable connection error.
func noResponse() *llm.Error {
	return llm.NetworkError(&url.Error{Op: "Post", URL: providerURL, Err: io.EOF})
}

// cutStream is a disconnect inside a streamed response: the chunked body
// ends early, which the client reports as a cut stream even after a
// finish reason.
func cutStream() *llm.Error {
	return &llm.Error{Type: llm.TypeStreamCut, Retryable: true,
		Err: fmt.Errorf("%w: %w", llm.ErrStreamCut, io.ErrUnexpectedEOF)}
}

// deterministic500 mirrors the client's list of 500 answers no retry fixes.
var deterministic500 = []string{
	"Cannot use tools with stream",
	"[json.exception.parse_error",
	"Failed to parse messages",
}

// clientError mirrors the client's parseError: status is the HTTP status,
// or 0 for an error frame, whose numeric code then stands in for it.
func clientError(status int, body []byte) *llm.Error {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	var eb struct {
		Code          json.RawMessage `json:"code"`
		Message       string          `json:"message"`
		Type          string          `json:"type"`
		NPromptTokens int             `json:"n_prompt_tokens"`
		NCtx          int             `json:"n_ctx"`
	}
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
		msg = string(bytes.TrimSpace(body))
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
