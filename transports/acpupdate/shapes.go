package acpupdate

import "encoding/json"

// The session/update shapes (ACP schema v1, plus hydra's and RFD #533's
// variants). Only what changed is set; tool call updates carry the call's
// whole current state, so that a replay may keep the last one alone.

// ContentBlock is an ACP content block: text, image or resource_link.
type ContentBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	URI      string `json:"uri,omitempty"`
}

// Chunk is a user_message_chunk, agent_message_chunk or agent_thought_chunk.
type Chunk struct {
	SessionUpdate string       `json:"sessionUpdate"`
	Content       ContentBlock `json:"content"`
	// MessageID is the update's id (see UpdateID); the message it is a
	// chunk of is in Meta.
	MessageID string      `json:"messageId,omitempty"`
	Meta      *UpdateMeta `json:"_meta,omitempty"`
}

// UpdateMeta is an update's own _meta.
type UpdateMeta struct {
	Hydra UpdateHydra `json:"hydra-acp"`
}

// UpdateHydra are the hydra-acp fields of an update's _meta.
type UpdateHydra struct {
	// ACPMessageID is the ACP message the update belongs to: the
	// prompt's or the assistant message's id, shared by all its chunks
	// (and the prompt's on its prompt_received and turn_complete). The
	// update's own messageId is its id (UpdateID), which Hydra's clients
	// resume after_message from.
	ACPMessageID string `json:"acpMessageId,omitempty"`
	// CompatFor marks a user chunk that repeats a prompt_received for
	// clients that do not know it; those that do skip it.
	CompatFor string `json:"compatFor,omitempty"`
}

// ACPMessage is the ACP message id meta carries, "" for none.
func (m *UpdateMeta) ACPMessage() string {
	if m == nil {
		return ""
	}
	return m.Hydra.ACPMessageID
}

// MessageMeta is the meta of an update of ACP message id, nil for none.
func MessageMeta(id string) *UpdateMeta {
	if id == "" {
		return nil
	}
	return &UpdateMeta{Hydra: UpdateHydra{ACPMessageID: id}}
}

// ToolContent is one item of a tool call's content.
type ToolContent struct {
	Type    string        `json:"type"` // content
	Content *ContentBlock `json:"content,omitempty"`
}

// ToolCall is a tool_call or tool_call_update with the call's whole state;
// without SessionUpdate, the toolCall of a permission request.
type ToolCall struct {
	SessionUpdate string          `json:"sessionUpdate,omitempty"`
	ToolCallID    string          `json:"toolCallId"`
	Title         string          `json:"title,omitempty"`
	Kind          string          `json:"kind,omitempty"`
	Status        string          `json:"status,omitempty"`
	RawInput      json.RawMessage `json:"rawInput,omitempty"`
	Content       []ToolContent   `json:"content,omitempty"`
	MessageID     string          `json:"messageId,omitempty"` // the update's id; none on a permission request's toolCall
}

// Usage is a usage_update: the context used out of the model's window
// (RFD session-usage), and hydra's running totals of the session.
type Usage struct {
	SessionUpdate string      `json:"sessionUpdate"` // usage_update
	Used          int64       `json:"used"`
	Size          int64       `json:"size"`
	Cost          *Cost       `json:"cost,omitempty"`
	TokenUsage    *TokenUsage `json:"tokenUsage,omitempty"`
}

// Cost is an amount spent.
type Cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// TokenUsage is the session's tokens so far, as hydra's usage_update
// carries them (its /events consumers diff successive rows).
type TokenUsage struct {
	Prompt     int64 `json:"prompt"`
	Completion int64 `json:"completion"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
}

// Mode is a current_mode_update.
type Mode struct {
	SessionUpdate string `json:"sessionUpdate"` // current_mode_update
	CurrentModeID string `json:"currentModeId"`
}

// Config is a config_option_update.
type Config struct {
	SessionUpdate string         `json:"sessionUpdate"` // config_option_update
	ConfigOptions []ConfigOption `json:"configOptions"`
}

// Info is a session_info_update.
type Info struct {
	SessionUpdate string `json:"sessionUpdate"` // session_info_update
	Title         string `json:"title,omitempty"`
}

// PromptReceived is hydra's prompt_received: a prompt some client sent
// started its run.
type PromptReceived struct {
	SessionUpdate string         `json:"sessionUpdate"` // prompt_received
	MessageID     string         `json:"messageId"`     // the update's id; the prompt's is in Meta
	Prompt        []ContentBlock `json:"prompt"`
	SentBy        *SentBy        `json:"sentBy,omitempty"`
	Meta          *UpdateMeta    `json:"_meta,omitempty"`
}

// SentBy is who sent a prompt, as Hydra's prompt_received names it: the
// client's id, and its clientInfo when the transport knows it.
type SentBy struct {
	ClientID string `json:"clientId"`
	Name     string `json:"name,omitempty"`
	Version  string `json:"version,omitempty"`
}

// TurnComplete is hydra's turn_complete: a run ended.
type TurnComplete struct {
	SessionUpdate string      `json:"sessionUpdate"` // turn_complete
	StopReason    string      `json:"stopReason"`
	MessageID     string      `json:"messageId,omitempty"` // the update's id; the prompt's is in Meta
	Meta          *UpdateMeta `json:"_meta,omitempty"`
}

// PermissionResolved is hydra's permission_resolved.
type PermissionResolved struct {
	SessionUpdate string `json:"sessionUpdate"` // permission_resolved
	ToolCallID    string `json:"toolCallId"`
	Outcome       string `json:"outcome"`
	// ChosenOptionID is the option chosen, as Hydra's TUI and shim read
	// it; OptionID the same, as the reference's REST names it.
	ChosenOptionID string `json:"chosenOptionId,omitempty"`
	OptionID       string `json:"optionId,omitempty"`
	ResolvedBy     string `json:"resolvedBy,omitempty"`
	MessageID      string `json:"messageId,omitempty"` // the update's id
}

// Compaction is hydra's hydra_compaction.
// Retry is troupe's notice of an automatic retry after a provider error
// (troupe_retry): a client that does not know the kind ignores it, and
// it asks no client to take back anything it showed. Attempt counts the
// retries (1 … Retries); started carries the wait and the error that
// caused it, recovered and failed end the retries.
type Retry struct {
	SessionUpdate string `json:"sessionUpdate"` // troupe_retry
	Phase         string `json:"phase"`         // started | recovered | failed
	Attempt       int    `json:"attempt"`
	Retries       int    `json:"retries"`
	DelayMS       int64  `json:"delayMs,omitempty"`
	Error         string `json:"error,omitempty"`
}

type Compaction struct {
	SessionUpdate string `json:"sessionUpdate"` // hydra_compaction
	Phase         string `json:"phase"`         // started | swapped | failed
	RequestedAt   int64  `json:"requestedAt,omitempty"`
	Title         string `json:"title,omitempty"` // swapped: the session's title
	Error         string `json:"error,omitempty"`
}

// PlanUpdate is an agent's plan (ACP's plan update), whole each time.
type PlanUpdate struct {
	SessionUpdate string      `json:"sessionUpdate"`
	Entries       []PlanEntry `json:"entries"`
	MessageID     string      `json:"messageId,omitempty"`
}

// PlanEntry is one task of a plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority,omitempty"`
	Status   string `json:"status,omitempty"`
}
