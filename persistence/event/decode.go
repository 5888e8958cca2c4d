package event

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// payloadOf gives a fresh payload value for each kind, so a payload can be
// checked against its shape before it enters a log.
var payloadOf = map[Kind]func() any{
	SessionCreated:          func() any { return &CreatedPayload{} },
	SessionSettingsChanged:  func() any { return &Settings{} },
	PromptQueued:            func() any { return &PromptQueuedPayload{} },
	PromptUpdated:           func() any { return &PromptChangedPayload{} },
	PromptCancelled:         func() any { return &PromptChangedPayload{} },
	PromptAmended:           func() any { return &PromptChangedPayload{} },
	PromptDelivered:         func() any { return &PromptDeliveredPayload{} },
	RunStarted:              func() any { return &RunStartedPayload{} },
	RunEnded:                func() any { return &RunEndedPayload{} },
	RunInterrupted:          func() any { return &RunInterruptedPayload{} },
	StepStarted:             func() any { return &StepStartedPayload{} },
	StepEnded:               func() any { return &StepEndedPayload{} },
	MessageDelta:            func() any { return &MessageDeltaPayload{} },
	MessageCompleted:        func() any { return &MessageCompletedPayload{} },
	ToolStarted:             func() any { return &ToolStartedPayload{} },
	ToolPermissionRequested: func() any { return &PermissionRequestedPayload{} },
	ToolPermissionResolved:  func() any { return &PermissionResolvedPayload{} },
	ToolProgress:            func() any { return &ToolProgressPayload{} },
	ToolCompleted:           func() any { return &ToolCompletedPayload{} },
	ToolProcess:             func() any { return &ToolProcessPayload{} },
	RetryStarted:            func() any { return &RetryPayload{} },
	RetryEnded:              func() any { return &RetryPayload{} },
	CompactionStarted:       func() any { return &CompactionPayload{} },
	CompactionEnded:         func() any { return &CompactionPayload{} },
	BashExecuted:            func() any { return &BashExecutedPayload{} },
	HistoryImported:         func() any { return &HistoryImportedPayload{} },
	AttentionChanged:        func() any { return &AttentionPayload{} },
	MCPStatus:               func() any { return &MCPStatusPayload{} },
	TransformerAttached:     func() any { return &TransformerAttachedPayload{} },
	UpdateTransformed:       func() any { return &UpdateTransformedPayload{} },
	PlanUpdated:             func() any { return &PlanPayload{} },
}

// DecodePayload unmarshals payload into the typed struct of kind (a pointer,
// e.g. *CreatedPayload).
func DecodePayload(kind Kind, payload json.RawMessage) (any, error) {
	mk, ok := payloadOf[kind]
	if !ok {
		return nil, fmt.Errorf("unknown event kind %q", kind)
	}
	v := mk()
	if err := json.Unmarshal(payload, v); err != nil {
		return nil, fmt.Errorf("event %s: %w", kind, err)
	}
	return v, nil
}

// Validate reports whether the draft can enter a log: a known kind and a
// JSON object payload of that kind's shape.
func (d Draft) Validate() error {
	p := bytes.TrimSpace(d.Payload)
	if len(p) == 0 || p[0] != '{' {
		return fmt.Errorf("event %s: payload must be a JSON object", d.Kind)
	}
	_, err := DecodePayload(d.Kind, d.Payload)
	return err
}
