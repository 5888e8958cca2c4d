package llm

import "encoding/json"

// Role is who said a message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Image is an inline image part of a message. Data is already base64 so a
// message read back from the session log goes on the wire without re-encoding.
type Image struct {
	MIMEType string // e.g. "image/png"
	Data     string // base64, standard alphabet, no data: prefix
}

// ToolCall is one call the assistant asked for. Arguments is the JSON text
// exactly as the model produced it: models emit broken JSON often enough that
// parsing belongs to the tool runner, which can report the error to the model.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Message is one turn of the conversation.
type Message struct {
	Role    Role
	Content string
	Images  []Image
	// Thinking is the model's reasoning text, kept apart from Content so it
	// can be shown, logged or dropped without parsing <think> tags.
	Thinking   string
	ToolCalls  []ToolCall // assistant messages only
	ToolCallID string     // tool messages only: the call this result answers
	// Continuation is what the provider that wrote this assistant message
	// needs back to continue from it (see Continuation); nil for most.
	Continuation *Continuation
}

// Continuation is provider-specific state an assistant message must carry
// back to the provider that produced it: Anthropic's thinking blocks with
// their signatures and redacted thinking, Gemini's thought signatures,
// OpenAI Responses' reasoning items. Data is opaque outside the provider
// named by Provider (the API name, e.g. "anthropic", "google",
// "openai-responses"); a provider given another's continuation drops it and
// sends the plain Thinking text as its own rules allow, which is what keeps
// a conversation valid when a session switches provider.
type Continuation struct {
	Provider string
	Data     json.RawMessage
}

// For returns the continuation's data when api wrote it, else nil.
func (c *Continuation) For(api string) json.RawMessage {
	if c == nil || c.Provider != api {
		return nil
	}
	return c.Data
}

// ToolDef describes a tool the model may call. Parameters is a JSON Schema
// object; nil means the tool takes no arguments.
type ToolDef struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// ThinkingLevel asks a reasoning model for more or less reasoning. The empty
// value and ThinkingOff both mean "do not ask".
type ThinkingLevel string

const (
	ThinkingOff     ThinkingLevel = "off"
	ThinkingMinimal ThinkingLevel = "minimal"
	ThinkingLow     ThinkingLevel = "low"
	ThinkingMedium  ThinkingLevel = "medium"
	ThinkingHigh    ThinkingLevel = "high"
	ThinkingXHigh   ThinkingLevel = "xhigh"
)

// Request is one completion request.
type Request struct {
	Model    string
	Messages []Message
	Tools    []ToolDef
	// MaxTokens caps the reply; 0 leaves the server default.
	MaxTokens int
	// Temperature is a pointer because 0 is a meaningful temperature.
	Temperature *float64
	Thinking    ThinkingLevel
	// Stream asks for incremental deltas. Without it the provider still
	// reports the whole reply through the sink, in one go, at the end.
	Stream bool
	// Headers are added to this request only, after the provider's own.
	Headers map[string]string
	// SessionID is sent as X-Session-ID so a server can keep per-session
	// state (prompt cache, slot affinity) across turns.
	SessionID string
}

// Usage is the token accounting a server reported.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
	// CachedTokens is the part of the prompt served from the server's cache;
	// 0 when the server does not report it.
	CachedTokens int
	// CacheWriteTokens is the part of the prompt written to the provider's
	// cache (Anthropic's cache_creation_input_tokens); PromptTokens counts
	// every prompt token, cached, written and plain alike.
	CacheWriteTokens int
}

// FinishReason says why the model stopped. Values other than the constants
// are kept verbatim rather than mapped, so nothing a server says is lost.
type FinishReason string

const (
	FinishStop          FinishReason = "stop"
	FinishLength        FinishReason = "length"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishContentFilter FinishReason = "content_filter"
)
