package llmserver

import (
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/troupehq/troupe/runtime/llm"
)

// The errors below are the ones runtime/llm/openai makes of the server's
// failures: the bodies the server would send go through the same
// llm.ParseErrorBody and llm.ParseErrorFrame the client uses, and the
// equivalence tests check the wrapping around them.

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
	return llm.ParseErrorBody(e.code(), body)
}

// streamFailure is what the client makes of the error frame Server.stream
// writes for e.
func streamFailure(e APIError) *llm.Error {
	body, err := e.body(false)
	if err != nil {
		e = APIError{Status: http.StatusInternalServerError, Message: err.Error()}
		body, _ = e.body(false)
	}
	return llm.ParseErrorFrame(body)
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
