package openairesponses

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/troupehq/troupe/runtime/llm"
)

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

// classify is the SDK middleware that turns every failure of the HTTP
// exchange into an *llm.Error before the SDK sees it: an error status with
// its body and retry-after, or a network failure. The SDK would otherwise
// make an *openai.Error of a JSON body only, and lose the status of an HTML
// page from a proxy. With retries off it returns the error as it is.
func classify(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil {
		if req.Context().Err() != nil {
			return nil, req.Context().Err()
		}
		return nil, llm.NetworkError(err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, httpError(resp, time.Now())
	}
	return resp, nil
}

// requestError is what sending the request failed with: the context's own
// error when it was cancelled, else the *llm.Error classify made, or the
// SDK's own failure (building the request) as it is.
func requestError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// httpError classifies an error answer. OpenAI's body is the shape every
// OpenAI-compatible server shares, {"error":{"message","type","param",
// "code"}}, read by llm.ParseErrorBody; its string code is the more specific
// word (context_length_exceeded, insufficient_quota) and refines it.
func httpError(resp *http.Response, now time.Time) *llm.Error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := llm.ParseErrorBody(resp.StatusCode, body)
	if err != nil && e.Message == "" {
		e.Err = err
	}
	applyCode(e, bodyCode(body))
	e.RetryAfter = retryAfter(resp.Header, now)
	return e
}

// retryAfter reads OpenAI's retry-after-ms (finer, sent by OpenAI and
// Azure) or the standard retry-after.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	return llm.ParseRetryAfter(h.Get("Retry-After"), now)
}

// bodyCode is the string code of an error body, or "".
func bodyCode(body []byte) string {
	var env struct {
		Error struct {
			Code json.RawMessage `json:"code"`
		} `json:"error"`
	}
	var code string
	if json.Unmarshal(body, &env) != nil || json.Unmarshal(env.Error.Code, &code) != nil {
		return ""
	}
	return code
}

// Error codes OpenAI puts in an error body, a response.failed event's
// error or an error event, by what a retry can do about them.
var (
	overflowCodes = []string{"context_length_exceeded"}
	retryCodes    = []string{"server_error", "rate_limit_exceeded", "vector_store_timeout"}
	// fatalCodes are the request's or the account's own fault; so is any
	// code about an image or starting "invalid_".
	fatalCodes = []string{"insufficient_quota", "data_residency_mismatch", "bio_policy", "misalignment_policy_violation"}
)

// applyCode refines a classified error by OpenAI's error code: the code is
// its Type, and says retryable, overflow or fatal where it knows.
func applyCode(e *llm.Error, code string) {
	if code == "" {
		return
	}
	e.Type = code
	switch {
	case slices.Contains(overflowCodes, code):
		e.ContextOverflow, e.Retryable = true, false
	case slices.Contains(retryCodes, code):
		e.Retryable = !e.ContextOverflow
	case slices.Contains(fatalCodes, code), strings.HasPrefix(code, "invalid_"), strings.Contains(code, "image"):
		e.Retryable = false
	}
}

// streamError classifies a failure the stream reported after the request
// was accepted (a response.failed event's error, an error event): it is
// the server's, worth a retry, unless its code or text says otherwise.
func streamError(code, message string) *llm.Error {
	e := llm.HTTPError(0, code, message)
	if !e.ContextOverflow {
		e.Retryable = true
	}
	applyCode(e, code)
	return e
}

// errNoTerminal is why a stream that ended without response.completed,
// response.incomplete or response.failed is cut.
var errNoTerminal = errors.New("the event stream ended before response.completed")
