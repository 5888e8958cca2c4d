package acp

import (
	"encoding/json"
	"strconv"
)

// The session/update shapes (ACP schema v1, plus hydra's and RFD #533's
// variants). Only what changed is set; tool call updates carry the call's
// whole current state, so that replay may keep the last one alone.

type updateParams struct {
	SessionID string      `json:"sessionId"`
	Update    any         `json:"update"`
	Meta      *updateMeta `json:"_meta,omitempty"`
}

type updateMeta struct {
	Hydra stamp `json:"hydra-acp"`
}

// stamp names the event an update comes from: MessageID is an anchor
// session/attach after_message takes; RecordedAt is the event's time in
// epoch ms, the same live and on replay.
type stamp struct {
	MessageID  string `json:"messageId"`
	RecordedAt int64  `json:"recordedAt"`
}

// anchorID is the after_message anchor of the event at seq.
func anchorID(seq int64) string { return "ev-" + strconv.FormatInt(seq, 10) }

// parseAnchor reads an anchorID.
func parseAnchor(s string) (int64, bool) {
	if len(s) < 4 || s[:3] != "ev-" {
		return 0, false
	}
	n, err := strconv.ParseInt(s[3:], 10, 64)
	return n, err == nil && n > 0
}

type contentBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	URI      string `json:"uri,omitempty"`
}

type chunk struct {
	SessionUpdate string       `json:"sessionUpdate"` // user_message_chunk | agent_message_chunk | agent_thought_chunk
	Content       contentBlock `json:"content"`
	MessageID     string       `json:"messageId,omitempty"`
}

type toolContent struct {
	Type    string        `json:"type"` // content
	Content *contentBlock `json:"content,omitempty"`
}

type toolCallUpdate struct {
	SessionUpdate string          `json:"sessionUpdate,omitempty"` // tool_call | tool_call_update; none in a permission request
	ToolCallID    string          `json:"toolCallId"`
	Title         string          `json:"title,omitempty"`
	Kind          string          `json:"kind,omitempty"`
	Status        string          `json:"status,omitempty"`
	RawInput      json.RawMessage `json:"rawInput,omitempty"`
	Content       []toolContent   `json:"content,omitempty"`
}

type usageUpdate struct {
	SessionUpdate string     `json:"sessionUpdate"` // usage_update
	Used          int64      `json:"used"`
	Size          int64      `json:"size"`
	Cost          *usageCost `json:"cost,omitempty"`
}

type usageCost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

type modeUpdate struct {
	SessionUpdate string `json:"sessionUpdate"` // current_mode_update
	CurrentModeID string `json:"currentModeId"`
}

type configUpdate struct {
	SessionUpdate string         `json:"sessionUpdate"` // config_option_update
	ConfigOptions []configOption `json:"configOptions"`
}

type infoUpdate struct {
	SessionUpdate string `json:"sessionUpdate"` // session_info_update
	Title         string `json:"title,omitempty"`
}

type promptReceived struct {
	SessionUpdate string         `json:"sessionUpdate"` // prompt_received
	MessageID     string         `json:"messageId"`
	Prompt        []contentBlock `json:"prompt"`
	SentBy        string         `json:"sentBy,omitempty"`
}

type turnComplete struct {
	SessionUpdate string `json:"sessionUpdate"` // turn_complete
	StopReason    string `json:"stopReason"`
	MessageID     string `json:"messageId,omitempty"`
}

type permissionResolved struct {
	SessionUpdate  string `json:"sessionUpdate"` // permission_resolved
	ToolCallID     string `json:"toolCallId"`
	Outcome        string `json:"outcome"`
	ChosenOptionID string `json:"chosenOptionId,omitempty"`
	ResolvedBy     string `json:"resolvedBy,omitempty"`
}

type compactionUpdate struct {
	SessionUpdate string `json:"sessionUpdate"` // hydra_compaction
	Phase         string `json:"phase"`         // started | swapped | failed
	RequestedAt   int64  `json:"requestedAt,omitempty"`
	Error         string `json:"error,omitempty"`
}
