package jsonstream

// Version is the protocol version announced in ready (the spec's current
// version, not troupe's).
const Version = "0.1.0"

// Error codes of the protocol.
const (
	CodeProvider = "provider_error"
	CodeTool     = "tool_error"
	CodeConfig   = "config_error"
	CodeProtocol = "protocol_error"
	CodeInternal = "internal_error"
)

// Modes are the approval modes set_mode accepts, in the spec's order.
var Modes = []string{"default", "auto_edit", "yolo"}

// Capabilities are announced in ready and, after set_mode, in
// config_changed. Modes and CurrentMode are optional additions that the
// spec's versioning rule allows and existing hosts read.
type Capabilities struct {
	ToolApproval bool     `json:"tool_approval"`
	Thinking     bool     `json:"thinking"`
	MCP          bool     `json:"mcp"`
	Modes        []string `json:"modes"`
	CurrentMode  string   `json:"current_mode"`
}

// NewCapabilities describes troupe in mode. MCP is false: this mode has no
// way to configure MCP servers (add_mcp_server is not supported).
func NewCapabilities(mode string) Capabilities {
	return Capabilities{ToolApproval: true, Thinking: true, Modes: Modes, CurrentMode: mode}
}

// Ready is the first line a process writes.
type Ready struct {
	Type         string       `json:"type"`
	Version      string       `json:"version"`
	SessionID    string       `json:"session_id,omitempty"`
	Capabilities Capabilities `json:"capabilities"`
}

// NewReady builds the ready event.
func NewReady(sessionID, mode string) Ready {
	return Ready{Type: "ready", Version: Version, SessionID: sessionID, Capabilities: NewCapabilities(mode)}
}

// ConfigChanged follows a mode change.
type ConfigChanged struct {
	Type         string       `json:"type"`
	Capabilities Capabilities `json:"capabilities"`
}

// StreamStart opens a response.
type StreamStart struct {
	Type  string `json:"type"`
	MsgID string `json:"msg_id"`
}

// Delta is text_delta or thinking.
type Delta struct {
	Type  string `json:"type"`
	Text  string `json:"text"`
	MsgID string `json:"msg_id"`
}

// ToolInfo describes a call awaiting approval.
type ToolInfo struct {
	Name        string `json:"name"`
	Category    string `json:"category"`
	Args        any    `json:"args"`
	Description string `json:"description"`
}

// ToolRequest asks the client to approve or deny a call.
type ToolRequest struct {
	Type   string   `json:"type"`
	MsgID  string   `json:"msg_id"`
	CallID string   `json:"call_id"`
	Tool   ToolInfo `json:"tool"`
}

// ToolRunning says a call started executing.
type ToolRunning struct {
	Type     string `json:"type"`
	MsgID    string `json:"msg_id"`
	CallID   string `json:"call_id"`
	ToolName string `json:"tool_name"`
}

// ToolResult carries a finished call's output.
type ToolResult struct {
	Type       string            `json:"type"`
	MsgID      string            `json:"msg_id"`
	CallID     string            `json:"call_id"`
	ToolName   string            `json:"tool_name"`
	Status     string            `json:"status"`
	Output     string            `json:"output"`
	OutputType string            `json:"output_type"`
	Metadata   map[string]string `json:"metadata,omitempty"`
}

// ToolCancelled says a call was denied or cancelled.
type ToolCancelled struct {
	Type   string `json:"type"`
	MsgID  string `json:"msg_id"`
	CallID string `json:"call_id"`
	Reason string `json:"reason"`
}

// Usage is stream_end's token count for the whole response.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
}

// StreamEnd closes a response.
type StreamEnd struct {
	Type  string `json:"type"`
	MsgID string `json:"msg_id"`
	Usage Usage  `json:"usage"`
}

// ErrorBody is the error object of an error event.
type ErrorBody struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

// Error is an error event; MsgID is null when no message is concerned.
type Error struct {
	Type  string    `json:"type"`
	MsgID *string   `json:"msg_id"`
	Error ErrorBody `json:"error"`
}

// NewError builds an error event; msgID "" writes null.
func NewError(msgID, code, message string, retryable bool) Error {
	return Error{Type: "error", MsgID: optional(msgID), Error: ErrorBody{Code: code, Message: message, Retryable: retryable}}
}

// Info is a message for display only.
type Info struct {
	Type    string  `json:"type"`
	MsgID   *string `json:"msg_id"`
	Message string  `json:"message"`
}

// NewInfo builds an info event; msgID "" writes null.
func NewInfo(msgID, message string) Info {
	return Info{Type: "info", MsgID: optional(msgID), Message: message}
}

// Pong answers ping (an aionrs command outside the spec, kept for hosts
// that probe liveness with it).
type Pong struct {
	Type string `json:"type"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
