package llm

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestHTTPErrorClassification(t *testing.T) {
	for _, tc := range []struct {
		status            int
		typ, msg          string
		retryable, overfl bool
	}{
		{429, "rate_limit_error", "slow down", true, false},
		{408, "", "timeout", true, false},
		{500, "server_error", "boom", true, false},
		{502, "", "bad gateway", true, false},
		{503, "unavailable_error", "Loading model", true, false},
		{529, "overloaded_error", "Overloaded", true, false},
		{501, "not_supported_error", "start it with --slots", false, false},
		{400, "invalid_request_error", "bad", false, false},
		{401, "authentication_error", "Invalid API Key", false, false},
		{404, "not_found_error", "File Not Found", false, false},
		{400, "overloaded_error", "try later", true, false},
		{400, "exceed_context_size_error", "request (1528 tokens) exceeds the available context size (1024 tokens)", false, true},
		{400, "invalid_request_error", "This model's maximum context length is 8192 tokens", false, true},
		{400, "context_length_exceeded", "", false, true},
		{500, "server_error", "prompt is too long", false, true},
	} {
		e := HTTPError(tc.status, tc.typ, tc.msg)
		if e.Retryable != tc.retryable || e.ContextOverflow != tc.overfl {
			t.Errorf("%d %s %q: retryable %v overflow %v, want %v %v", tc.status, tc.typ, tc.msg, e.Retryable, e.ContextOverflow, tc.retryable, tc.overfl)
		}
	}
}

func TestNetworkErrorClassification(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	for _, tc := range []struct {
		err       error
		retryable bool
	}{
		{fmt.Errorf("post: %w", refused), true},
		{reset, true},
		{io.ErrUnexpectedEOF, true},
		{errors.New("proxy: connection reset by peer"), true},
		{errors.New("unsupported protocol scheme"), false},
		{&net.DNSError{Err: "no such host", Name: "x"}, false},
	} {
		e := NetworkError(tc.err)
		if e.Retryable != tc.retryable || e.Type != TypeConnection || !errors.Is(e, tc.err) {
			t.Errorf("%v: got %+v, want retryable %v", tc.err, e, tc.retryable)
		}
	}
}

func TestErrorHelpersThroughWrapping(t *testing.T) {
	err := fmt.Errorf("turn 3: %w", HTTPError(503, "unavailable_error", "Loading model"))
	if !IsRetryable(err) || IsContextOverflow(err) {
		t.Fatalf("wrapped 503: retryable %v overflow %v", IsRetryable(err), IsContextOverflow(err))
	}
	if IsRetryable(errors.New("plain")) || IsContextOverflow(nil) {
		t.Fatal("non-llm errors are neither")
	}
	cut := &Error{Type: TypeStreamCut, Retryable: true, Err: ErrStreamCut}
	if !errors.Is(fmt.Errorf("x: %w", cut), ErrStreamCut) {
		t.Fatal("stream cut not found by errors.Is")
	}
	for e, want := range map[*Error]string{
		HTTPError(503, "unavailable_error", "Loading model"): "llm error 503 unavailable_error: Loading model",
		cut: "llm error stream_cut: stream was cut before the reply finished",
		{Type: TypeConnection, Message: "dial", Err: io.EOF}: "llm error connection_error: dial: EOF",
	} {
		if e.Error() != want {
			t.Errorf("got %q, want %q", e.Error(), want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	cases := map[string]time.Duration{
		"":                              0,
		"7":                             7 * time.Second,
		"0.5":                           500 * time.Millisecond,
		"-3":                            0,
		"soon":                          0,
		"Sat, 28 Nov 2026 03:00:30 GMT": 30 * time.Second,
		"Sat, 28 Nov 2026 02:59:00 GMT": 0, // already past
	}
	for in, want := range cases {
		if got := ParseRetryAfter(in, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
	err := fmt.Errorf("step: %w", &Error{Status: 429, Retryable: true, RetryAfter: 3 * time.Second})
	if got := RetryAfterOf(err); got != 3*time.Second {
		t.Errorf("RetryAfterOf = %v", got)
	}
}
