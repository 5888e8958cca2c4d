package rpc

import "encoding/json"

// The protocol's events, as structs so that fields come out in the order
// pi writes them ("type" first), which keeps transcripts readable.

type typeOnly struct {
	Type string `json:"type"`
}

type turnEndEvent struct {
	Type        string `json:"type"`
	Message     any    `json:"message"`
	ToolResults []any  `json:"toolResults"`
}

type updateEvent struct {
	Type                  string `json:"type"`
	Message               any    `json:"message"`
	AssistantMessageEvent any    `json:"assistantMessageEvent"`
}

type finalEvent struct {
	Type    string `json:"type"` // done | error
	Reason  string `json:"reason"`
	Message any    `json:"message,omitempty"`
	Error   any    `json:"error,omitempty"`
}

type agentEndEvent struct {
	Type     string `json:"type"`
	Messages []any  `json:"messages"`
}

type toolResultJSON struct {
	Content []any          `json:"content"`
	Details map[string]any `json:"details"`
}

type toolEvent struct {
	Type          string          `json:"type"`
	ToolCallID    string          `json:"toolCallId"`
	ToolName      string          `json:"toolName"`
	Args          json.RawMessage `json:"args,omitempty"`
	PartialResult *toolResultJSON `json:"partialResult,omitempty"`
	Result        *toolResultJSON `json:"result,omitempty"`
	IsError       *bool           `json:"isError,omitempty"`
}

type retryStartEvent struct {
	Type         string `json:"type"`
	Attempt      int    `json:"attempt"`
	MaxAttempts  int    `json:"maxAttempts"`
	DelayMs      int64  `json:"delayMs"`
	ErrorMessage string `json:"errorMessage"`
}

type retryEndEvent struct {
	Type       string `json:"type"`
	Success    bool   `json:"success"`
	Attempt    int    `json:"attempt"`
	FinalError string `json:"finalError,omitempty"`
}

type compactionStartEvent struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

type compactResultJSON struct {
	Summary          string         `json:"summary"`
	FirstKeptEntryID string         `json:"firstKeptEntryId"`
	TokensBefore     int64          `json:"tokensBefore"`
	Details          map[string]any `json:"details"`
}

type compactionEndEvent struct {
	Type         string             `json:"type"`
	Result       *compactResultJSON `json:"result"`
	Aborted      bool               `json:"aborted"`
	WillRetry    bool               `json:"willRetry"`
	ErrorMessage string             `json:"errorMessage,omitempty"`
}
