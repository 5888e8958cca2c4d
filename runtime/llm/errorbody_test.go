package llm

import (
	"strings"
	"testing"
)

func TestParseErrorBody(t *testing.T) {
	long := strings.Repeat("x", 600)
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   Error
	}{
		{"openai shape", 429,
			`{"error":{"code":429,"message":"slow down","type":"rate_limit_error"}}`,
			Error{Status: 429, Type: "rate_limit_error", Message: "slow down", Retryable: true}},
		{"keys in another order", 503,
			`{"error":{"message":"Loading model","type":"unavailable_error","code":503}}`,
			Error{Status: 503, Type: "unavailable_error", Message: "Loading model", Retryable: true}},
		{"string code stands in for the type", 400,
			`{"error":{"code":"context_length_exceeded","message":"too long"}}`,
			Error{Status: 400, Type: "context_length_exceeded", Message: "too long", ContextOverflow: true}},
		{"llama-server overflow", 400,
			`{"error":{"code":400,"message":"request (1528 tokens) exceeds the available context size (1024 tokens)","type":"exceed_context_size_error","n_prompt_tokens":1528,"n_ctx":1024}}`,
			Error{Status: 400, Type: "exceed_context_size_error",
				Message:         "request (1528 tokens) exceeds the available context size (1024 tokens)",
				ContextOverflow: true, PromptTokens: 1528, ContextSize: 1024}},
		{"bare error string", 401, `{"error":"Invalid API Key"}`,
			Error{Status: 401, Message: "Invalid API Key"}},
		{"top-level message", 404, `{"message":"no such model"}`,
			Error{Status: 404, Message: "no such model"}},
		{"plain text is trimmed", 502, "  Bad Gateway\n",
			Error{Status: 502, Message: "Bad Gateway", Retryable: true}},
		{"plain text is cut", 502, long,
			Error{Status: 502, Message: long[:512], Retryable: true}},
		{"empty body says the status", 500, "",
			Error{Status: 500, Message: "internal server error", Retryable: true}},
		{"deterministic 500", 500,
			`{"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}}`,
			Error{Status: 500, Type: "server_error", Message: "Cannot use tools with stream"}},
		{"error document sent as 200", 200,
			`{"error":{"code":429,"message":"slow down","type":"rate_limit_error"}}`,
			Error{Status: 429, Type: "rate_limit_error", Message: "slow down", Retryable: true}},
		{"code does not override a real status", 400,
			`{"error":{"code":500,"message":"bad","type":"invalid_request_error"}}`,
			Error{Status: 400, Type: "invalid_request_error", Message: "bad"}},
	} {
		if got := ParseErrorBody(tc.status, []byte(tc.body)); *got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, *got, tc.want)
		}
	}
}

func TestParseErrorFrame(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want Error
	}{
		{"no code: a server failure", `{"error":{"message":"boom"}}`,
			Error{Message: "boom", Retryable: true}},
		{"numeric code is the status", `{"error":{"code":400,"message":"bad","type":"invalid_request_error"}}`,
			Error{Status: 400, Type: "invalid_request_error", Message: "bad"}},
		{"5xx code", `{"error":{"code":500,"message":"boom","type":"server_error"}}`,
			Error{Status: 500, Type: "server_error", Message: "boom", Retryable: true}},
		{"overflow is never retried", `{"error":{"message":"prompt is too long"}}`,
			Error{Message: "prompt is too long", ContextOverflow: true}},
	} {
		if got := ParseErrorFrame([]byte(tc.body)); *got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, *got, tc.want)
		}
	}
}
