package rpc

import (
	"encoding/json"
	"strings"
)

// The AgentMessage shapes of the protocol. Timestamps are unix ms.

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type thinkingBlock struct {
	Type     string `json:"type"`
	Thinking string `json:"thinking"`
}

type imageBlock struct {
	Type     string `json:"type"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

type toolCallBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type costJSON struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

type usageJSON struct {
	Input       int64    `json:"input"`
	Output      int64    `json:"output"`
	CacheRead   int64    `json:"cacheRead"`
	CacheWrite  int64    `json:"cacheWrite"`
	TotalTokens int64    `json:"totalTokens"`
	Cost        costJSON `json:"cost"`
}

type userMessage struct {
	Role        string `json:"role"`
	Content     any    `json:"content"` // a string, or blocks when there are images
	Timestamp   int64  `json:"timestamp"`
	Attachments []any  `json:"attachments"`
	entryID     string
	text        string
}

type assistantMessage struct {
	Role         string    `json:"role"`
	Content      []any     `json:"content"`
	API          string    `json:"api"`
	Provider     string    `json:"provider"`
	Model        string    `json:"model"`
	Usage        usageJSON `json:"usage"`
	StopReason   string    `json:"stopReason"`
	ErrorMessage string    `json:"errorMessage,omitempty"`
	Timestamp    int64     `json:"timestamp"`
	entryID      string
	text         string
	calls        int // tool calls in Content
}

type toolResultMessage struct {
	Role       string         `json:"role"`
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Content    []any          `json:"content"`
	Details    map[string]any `json:"details"`
	IsError    bool           `json:"isError"`
	Timestamp  int64          `json:"timestamp"`
	entryID    string
}

type bashMessage struct {
	Role           string  `json:"role"`
	Command        string  `json:"command"`
	Output         string  `json:"output"`
	ExitCode       int     `json:"exitCode"`
	Cancelled      bool    `json:"cancelled"`
	Truncated      bool    `json:"truncated"`
	FullOutputPath *string `json:"fullOutputPath"`
	Timestamp      int64   `json:"timestamp"`
	entryID        string
}

type summaryMessage struct {
	Role         string `json:"role"`
	Summary      string `json:"summary"`
	TokensBefore int64  `json:"tokensBefore"`
	Timestamp    int64  `json:"timestamp"`
}

// entryOf is the conversation entry id a message is known by (the ids
// runtime/conversation gives them, which compaction's first kept entry
// names).
func entryOf(m any) string {
	switch m := m.(type) {
	case *userMessage:
		return m.entryID
	case *assistantMessage:
		return m.entryID
	case *toolResultMessage:
		return m.entryID
	case *bashMessage:
		return m.entryID
	}
	return ""
}

func userContent(text string, imgs []imageBlock) any {
	if len(imgs) == 0 {
		return text
	}
	blocks := []any{textBlock{Type: "text", Text: text}}
	for _, i := range imgs {
		blocks = append(blocks, i)
	}
	return blocks
}

// argsJSON keeps arguments that are JSON as an object and wraps any other
// text as a string, so a malformed call still marshals.
func argsJSON(s string) json.RawMessage {
	t := strings.TrimSpace(s)
	if t == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	b, _ := json.Marshal(s)
	return b
}
