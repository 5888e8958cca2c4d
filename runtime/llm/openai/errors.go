package openai

import (
	"io"
	"net/http"

	"github.com/troupehq/troupe/runtime/llm"
)

// maxErrorBody bounds how much of an error answer is read: enough for any
// JSON error, small enough that a misbehaving proxy cannot exhaust memory.
const maxErrorBody = 1 << 20

// readHTTPError turns a non-2xx answer into a classified *llm.Error. The
// body's shape is shared by every OpenAI-compatible server, so reading it
// is llm.ParseErrorBody's job; only fetching it is this client's.
func readHTTPError(resp *http.Response) *llm.Error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := llm.ParseErrorBody(resp.StatusCode, body)
	if err != nil && e.Message == "" {
		e.Err = err
	}
	return e
}

// truncate shortens a body quoted in an error message, so that a huge or
// binary answer cannot flood a log.
func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
