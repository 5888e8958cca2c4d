package google

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/troupehq/troupe/runtime/llm"
)

// exchange is what the transport saw of one Stream call's HTTP answer: the
// SDK's APIError keeps the body but drops the headers, and Retry-After is
// in the headers; and the error that broke the body's reading, which the
// SDK would only log (through the standard logger, on stderr) before
// yielding it without context.
type exchange struct {
	mu      sync.Mutex
	status  int
	header  http.Header
	readErr error
}

func (x *exchange) seen() (int, http.Header) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.status, x.header
}

func (x *exchange) broken() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.readErr
}

// body ends a successful answer's body at the first read error, kept in
// the exchange: the SDK then sees a plain end and Stream reports the error
// itself (a cut stream, or the cancellation).
type body struct {
	io.ReadCloser
	x *exchange
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		b.x.mu.Lock()
		if b.x.readErr == nil {
			b.x.readErr = err
		}
		b.x.mu.Unlock()
		return n, io.EOF
	}
	return n, err
}

type exchangeKey struct{}

func withExchange(ctx context.Context, x *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, x)
}

// recordingTransport notes each answer's status and headers in the
// exchange its request's context carries (the SDK derives the request's
// context from the one Stream was given).
type recordingTransport struct {
	base http.RoundTripper
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	x, ok := req.Context().Value(exchangeKey{}).(*exchange)
	if !ok || resp == nil {
		return resp, err
	}
	x.mu.Lock()
	x.status, x.header = resp.StatusCode, resp.Header
	x.mu.Unlock()
	if resp.StatusCode == http.StatusOK {
		resp.Body = &body{ReadCloser: resp.Body, x: x}
	}
	return resp, err
}

// overflowMarkers are how the Gemini API says a prompt does not fit: "The
// input token count (1200000) exceeds the maximum number of tokens allowed
// (1048576)."
var overflowMarkers = []string{
	"input token count",
	"exceeds the maximum number of tokens",
}

// classify turns what the SDK returned into the error Stream reports:
// the context's own error when the caller stopped, a classified *llm.Error
// otherwise.
func classify(ctx context.Context, err error, x *exchange) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if broken := x.broken(); broken != nil {
		// Whatever the SDK made of the bytes before the break (a half
		// frame it could not parse), the break is the cause.
		return cutError(broken)
	}
	status, header := x.seen()
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		return apiError(apiErr, status, header)
	}
	if status == 0 {
		return llm.NetworkError(err)
	}
	// The answer had started and its body read cleanly: the SDK could not
	// make sense of what it said.
	return &llm.Error{Type: llm.TypeInvalidResponse, Err: err}
}

// cutError is the error of an answer whose body broke off.
func cutError(err error) *llm.Error {
	return &llm.Error{Type: llm.TypeStreamCut, Retryable: true, Err: fmt.Errorf("%w: %w", llm.ErrStreamCut, err)}
}

// apiError classifies Google's error body, {"error":{"code","message",
// "status","details"}}, met as an HTTP answer or (status 200) as a frame
// inside the stream.
func apiError(e genai.APIError, status int, header http.Header) *llm.Error {
	midStream := status == http.StatusOK
	code := e.Code
	if code == 0 && !midStream {
		code = status
	}
	msg := e.Message
	if msg == "" && code != 0 {
		msg = strings.ToLower(http.StatusText(code))
	}
	if hasReason(e.Details, "API_KEY_INVALID") {
		// The Gemini API answers a bad key with 400 INVALID_ARGUMENT; it is
		// reported as the 401 every other provider gives, so the engine
		// names the key's source whichever provider refused it.
		code = http.StatusUnauthorized
	}
	out := llm.HTTPError(code, e.Status, msg)
	lm := strings.ToLower(msg)
	if strings.Contains(lm, overflowMarkers[0]) && strings.Contains(lm, overflowMarkers[1]) {
		out.ContextOverflow, out.Retryable = true, false
	}
	if midStream && code == 0 && !out.ContextOverflow {
		// The request was accepted before the frame came, so it was not
		// malformed: a failure worth a retry, as on every other wire.
		out.Retryable = true
	}
	if !midStream {
		out.RetryAfter = llm.ParseRetryAfter(header.Get("Retry-After"), time.Now())
	}
	if out.RetryAfter == 0 {
		out.RetryAfter = retryDelay(e.Details)
	}
	return out
}

// hasReason reports whether a google.rpc.ErrorInfo in details gives reason.
func hasReason(details []map[string]any, reason string) bool {
	for _, d := range details {
		t, _ := d["@type"].(string)
		if r, _ := d["reason"].(string); strings.HasSuffix(t, "google.rpc.ErrorInfo") && r == reason {
			return true
		}
	}
	return false
}

// retryDelay reads google.rpc.RetryInfo from an error's details, where
// the Gemini API says how long a quota needs ("retryDelay": "37s").
func retryDelay(details []map[string]any) time.Duration {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		s, _ := d["retryDelay"].(string)
		if v, err := time.ParseDuration(s); err == nil && v > 0 {
			return v
		}
	}
	return 0
}
