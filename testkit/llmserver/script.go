package llmserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Script is everything the server says: its identity, its readiness and the
// replies it plays. The zero value is a ready server with no replies.
type Script struct {
	// Model is the model id in /v1/models and /props, and in responses when
	// the request names none. Empty means "tiny".
	Model string `json:"model,omitempty"`
	// ContextSize is reported as n_ctx. Zero means 4096.
	ContextSize int `json:"context_size,omitempty"`
	// SupportsToolCalls sets chat_template_caps.supports_tool_calls and
	// supports_tools in /props, which clients use to choose between native
	// and text tool calls.
	SupportsToolCalls bool `json:"supports_tool_calls,omitempty"`
	// APIKey, when set, is required on every route except /health; several
	// keys are separated by commas, as llama-server's --api-key takes them.
	APIKey string `json:"api_key,omitempty"`
	// Loading is how many requests, counted over all routes, answer 503
	// "Loading model" before the server behaves as ready.
	Loading int `json:"loading,omitempty"`
	// Replies answer chat-completion requests in arrival order, one each.
	Replies []Reply `json:"replies,omitempty"`
	// Default answers every chat request after Replies run out. Without it
	// such a request is an error.
	Default *Reply `json:"default,omitempty"`
}

// Reply is the answer to one chat-completion request.
type Reply struct {
	Steps []Step `json:"steps"`
}

// Steps makes a Reply.
func Steps(steps ...Step) Reply { return Reply{Steps: steps} }

// Step is one thing a reply does. Exactly one field is set; the
// constructors below (Text, ToolCall, Delay, ...) are the easy way to make
// one. The JSON names are the script file keys.
type Step struct {
	Text     *string   `json:"text,omitempty"`
	Tokens   *TokenRun `json:"tokens,omitempty"`
	Thinking *string   `json:"thinking,omitempty"`
	// RedactedThinking is reasoning the provider encrypted (Anthropic's
	// redacted_thinking block, whose data is this string). Wire formats
	// with no such thing send nothing for it.
	RedactedThinking *string     `json:"redacted_thinking,omitempty"`
	ToolCall         *NativeCall `json:"tool_call,omitempty"`
	TextToolCall     *TaggedCall `json:"text_tool_call,omitempty"`
	Usage            *Usage      `json:"usage,omitempty"`
	Finish           *string     `json:"finish,omitempty"`
	HTTPError        *APIError   `json:"http_error,omitempty"`
	StreamError      *APIError   `json:"stream_error,omitempty"`
	Disconnect       bool        `json:"disconnect,omitempty"`
	Delay            *Duration   `json:"delay,omitempty"`
	KeepAlive        bool        `json:"keepalive,omitempty"`

	// err keeps a constructor's failure until Start reports it, so the
	// constructors can stay single-valued.
	err error
}

// NativeCall is an OpenAI tool call streamed as tool_calls deltas.
type NativeCall struct {
	// ID may be empty: llama-server then leaves id and type out of the
	// stream and sends "id":"" in non-streaming responses.
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Arguments is sent in one delta after the name delta. Set Chunks
	// instead to split it over several deltas.
	Arguments Arguments `json:"arguments,omitempty"`
	Chunks    []string  `json:"chunks,omitempty"`
}

// Arguments is the arguments text of a native tool call. In a script file
// a string is used verbatim and any other value is sent as compact JSON.
type Arguments string

// UnmarshalJSON accepts a JSON string (verbatim) or any other JSON value.
func (a *Arguments) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("decode arguments: %w", err)
		}
		*a = Arguments(s)
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return fmt.Errorf("decode arguments: %w", err)
	}
	*a = Arguments(buf.String())
	return nil
}

// TokenRun streams Text as Count content deltas, one after another: a
// long reply made cheaply, for benchmarks. Non-streaming replies carry the
// text Count times over.
type TokenRun struct {
	Count int    `json:"count"`
	Text  string `json:"text"`
}

// TaggedCall is a tool call written into the content text in one of the
// tag formats of models without native function calling.
type TaggedCall struct {
	Format TagFormat `json:"format"`
	// Inner defaults to InnerJSON.
	Inner InnerForm `json:"inner,omitempty"`
	Name  string    `json:"name"`
	// Args must be a JSON object; nil means {}. Key order is kept.
	Args json.RawMessage `json:"args,omitempty"`
	// Split, when positive, sends the rendered text in content deltas of at
	// most Split bytes (never inside a UTF-8 sequence), so a client's parser
	// meets tags cut across chunks.
	Split int `json:"split,omitempty"`
}

// Usage is the token accounting a reply reports.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CachedTokens is reported as prompt_tokens_details.cached_tokens and
	// timings.cache_n; it is part of PromptTokens.
	CachedTokens int `json:"cached_tokens,omitempty"`
	// ReasoningTokens is the part of CompletionTokens spent thinking; only
	// wire formats that report it apart use it (Gemini's
	// thoughtsTokenCount).
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// CacheWriteTokens is the part of PromptTokens written to the prompt
	// cache (Anthropic's cache_creation_input_tokens); wire formats with no
	// such count leave it inside PromptTokens unnamed.
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// TotalTokens zero means PromptTokens + CompletionTokens.
	TotalTokens int            `json:"total_tokens,omitempty"`
	On          UsagePlacement `json:"on,omitempty"`
}

// UsagePlacement says which streamed chunk carries the usage.
type UsagePlacement string

const (
	// UsageAuto behaves like llama-server: a separate "choices":[] chunk
	// when the request set stream_options.include_usage, else timings
	// alone on the finish chunk. The empty string means the same.
	UsageAuto UsagePlacement = "auto"
	// UsageOnFinish puts usage and timings on the finish chunk, as older
	// llama-server builds do.
	UsageOnFinish UsagePlacement = "finish"
	// UsageSeparate always sends the "choices":[] usage chunk.
	UsageSeparate UsagePlacement = "separate"
)

// APIError is an error answer in the OpenAI shape llama-server uses:
// {"error":{"code":Status,"message":Message,"type":Type,...Extra}}.
type APIError struct {
	Status int `json:"status"`
	// Message defaults to the HTTP status text.
	Message string `json:"message,omitempty"`
	// Type defaults from Status: 400 invalid_request_error, 401
	// authentication_error, 403 permission_error, 404 not_found_error, 429
	// rate_limit_error, 501 not_supported_error, 503 unavailable_error, else
	// server_error (or invalid_request_error below 500).
	Type string `json:"type,omitempty"`
	// Extra is a JSON object whose members are appended inside "error",
	// e.g. {"n_prompt_tokens":1528,"n_ctx":1024}.
	Extra json.RawMessage `json:"extra,omitempty"`
	// Header adds response headers (e.g. Retry-After); HTTP errors only.
	Header map[string]string `json:"header,omitempty"`
}

// Duration is a time.Duration written as a string like "50ms" in script
// files.
type Duration time.Duration

// UnmarshalJSON parses a Go duration string.
func (d *Duration) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("delay: want a duration string like \"50ms\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("delay: %w", err)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// Text streams s as one content delta.
func Text(s string) Step { return Step{Text: &s} }

// Tokens streams text as n content deltas (see TokenRun). A Provider plays
// it without allocating per delta, so a benchmark can push a million
// deltas through a session.
func Tokens(n int, text string) Step { return Step{Tokens: &TokenRun{Count: n, Text: text}} }

// Thinking streams s as one reasoning_content delta.
func Thinking(s string) Step { return Step{Thinking: &s} }

// RedactedThinking sends an encrypted reasoning block whose data is data
// (see Step.RedactedThinking).
func RedactedThinking(data string) Step { return Step{RedactedThinking: &data} }

// ToolCall streams a native tool call whose arguments arrive in one delta.
// An empty id is sent the way llama-server sends it.
func ToolCall(id, name, arguments string) Step {
	return Step{ToolCall: &NativeCall{ID: id, Name: name, Arguments: Arguments(arguments)}}
}

// ToolCallChunks streams a native tool call whose arguments arrive split
// over one delta per chunk.
func ToolCallChunks(id, name string, chunks ...string) Step {
	return Step{ToolCall: &NativeCall{ID: id, Name: name, Chunks: chunks}}
}

// TextToolCall streams, as content, a tool call rendered by
// RenderTextToolCall. args is marshalled to JSON (a json.RawMessage is kept
// as is, keeping its key order).
func TextToolCall(format TagFormat, inner InnerForm, name string, args any) Step {
	raw, err := argsJSON(args)
	return Step{TextToolCall: &TaggedCall{Format: format, Inner: inner, Name: name, Args: raw}, err: err}
}

// ReportUsage makes the reply report u (see UsagePlacement for where).
func ReportUsage(u Usage) Step { return Step{Usage: &u} }

// Finish sets the finish reason ("stop", "length", "tool_calls", ...) and
// sends the finish chunk at this point of the reply.
func Finish(reason string) Step { return Step{Finish: &reason} }

// HTTPError answers the request with an error status and body instead of
// a completion.
func HTTPError(e APIError) Step { return Step{HTTPError: &e} }

// StreamError writes data: {"error":...} and ends the stream without
// [DONE]. e.Status becomes the error's code (default 500).
func StreamError(e APIError) Step { return Step{StreamError: &e} }

// Disconnect closes the connection without finishing the response.
func Disconnect() Step { return Step{Disconnect: true} }

// Delay waits d before the next step, or less if the request is canceled.
func Delay(d time.Duration) Step {
	v := Duration(d)
	return Step{Delay: &v}
}

// KeepAlive writes the SSE comment frame ":\n\n" llama-server sends as a
// ping. Non-streaming replies ignore it.
func KeepAlive() Step { return Step{KeepAlive: true} }
