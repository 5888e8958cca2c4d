package llm

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrStreamCut is wrapped by the *Error returned when a streamed reply ends
// before the server said it was finished, so callers can tell a truncated
// reply from a complete one with errors.Is.
var ErrStreamCut = errors.New("stream was cut before the reply finished")

// Error types set by providers themselves, as opposed to the ones a server
// puts in its error body.
const (
	TypeConnection      = "connection_error"
	TypeStreamCut       = "stream_cut"
	TypeInvalidResponse = "invalid_response"
)

// Error is every failure a provider reports other than cancellation and sink
// errors. The engine branches on Retryable and ContextOverflow rather than on
// status codes, so each provider decides them once, here or in its own
// refinements.
type Error struct {
	// Status is the HTTP status, or the code an error frame carried
	// mid-stream; 0 when no response arrived.
	Status  int
	Type    string
	Message string
	// Retryable means the same request may succeed later (rate limit,
	// overload, model still loading, dropped connection).
	Retryable bool
	// ContextOverflow means the prompt does not fit the model's context:
	// retrying is useless, compacting the history may help.
	ContextOverflow bool
	// PromptTokens and ContextSize are reported by some servers (llama-server
	// n_prompt_tokens, n_ctx) with a context overflow; 0 when unknown.
	PromptTokens int
	ContextSize  int
	// RetryAfter is how long the server asked the client to wait before
	// trying again (a retry-after header with a 429 or 529); 0 when it
	// said nothing. A retry waits at least this long.
	RetryAfter time.Duration
	// Err is the underlying cause, if any (a network error, ErrStreamCut).
	Err error
}

// ParseRetryAfter reads a retry-after header: seconds, or an HTTP date;
// 0 when absent or unreadable.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs > 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// RetryAfterOf is the wait err's server asked for, or 0.
func RetryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("llm error")
	if e.Status != 0 {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(e.Status))
	}
	if e.Type != "" {
		b.WriteByte(' ')
		b.WriteString(e.Type)
	}
	switch {
	case e.Message != "":
		b.WriteString(": ")
		b.WriteString(e.Message)
		if e.Err != nil {
			b.WriteString(": ")
			b.WriteString(e.Err.Error())
		}
	case e.Err != nil:
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// IsRetryable reports whether err is an *Error marked retryable.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable
}

// IsContextOverflow reports whether err is an *Error marked as a context
// overflow.
func IsContextOverflow(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.ContextOverflow
}

// overflowMarkers are lower-case fragments that servers use for a prompt
// that does not fit. Matching text is crude, but servers agree on no code:
// llama-server says exceed_context_size_error, OpenAI context_length_exceeded,
// vLLM and others only say it in the message.
var overflowMarkers = []string{
	"exceed_context_size_error",
	"context_length_exceeded",
	"exceeds the available context size",
	"maximum context length",
	"context window",
	"prompt is too long",
}

// HTTPError classifies an error answer from a server: 429, 408 and 5xx
// (except 501 and 505, which no retry fixes) are retryable, as is anything
// that calls itself overloaded; other 4xx are not; a context overflow never
// is.
func HTTPError(status int, typ, message string) *Error {
	e := &Error{Status: status, Type: typ, Message: message}
	lt, lm := strings.ToLower(typ), strings.ToLower(message)
	for _, m := range overflowMarkers {
		if strings.Contains(lt, m) || strings.Contains(lm, m) {
			e.ContextOverflow = true
			return e
		}
	}
	switch {
	case status == 429, status == 408:
		e.Retryable = true
	case status >= 500 && status != 501 && status != 505:
		e.Retryable = true
	case strings.Contains(lt, "overloaded"), strings.Contains(lm, "overloaded"):
		e.Retryable = true
	}
	return e
}

// NetworkError classifies a failure to reach the server or to keep reading
// from it. Refused, reset and broken connections, unexpected EOFs and
// timeouts are retryable: they are what a restarting or overloaded server
// looks like from outside. Anything else (bad URL, TLS failure, unknown
// host) is not.
func NetworkError(err error) *Error {
	e := &Error{Type: TypeConnection, Err: err}
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, io.EOF),
		errors.As(err, &ne) && ne.Timeout():
		e.Retryable = true
	default:
		// Some platforms and proxies only say it in the text.
		s := strings.ToLower(err.Error())
		e.Retryable = strings.Contains(s, "connection refused") ||
			strings.Contains(s, "connection reset") ||
			strings.Contains(s, "broken pipe")
	}
	return e
}
