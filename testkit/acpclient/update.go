package acpclient

import (
	"testing"
)

// Update is a session/update's params, the fields tests match on.
type Update struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		SessionUpdate string `json:"sessionUpdate"`
		Content       struct {
			Text string `json:"text"`
		} `json:"content"`
		MessageID  string `json:"messageId"` // the update's id
		ToolCallID string `json:"toolCallId"`
		Status     string `json:"status"`
		StopReason string `json:"stopReason"`
		ResolvedBy string `json:"resolvedBy"`
		Meta       struct {
			Hydra struct {
				ACPMessageID string `json:"acpMessageId"` // the prompt's or the message's
				CompatFor    string `json:"compatFor"`
			} `json:"hydra-acp"`
		} `json:"_meta"`
	} `json:"update"`
	Meta struct {
		Hydra struct {
			MessageID string `json:"messageId"`
		} `json:"hydra-acp"`
	} `json:"_meta"`
}

// Update decodes a session/update's params.
func (f Frame) Update(t testing.TB) Update {
	t.Helper()
	return params[Update](t, f)
}

// QueueNote is the params of a hydra-acp prompt-queue notification
// (queued, updated, cancelled, amended).
type QueueNote struct {
	MessageID          string `json:"messageId"`
	CancelledMessageID string `json:"cancelledMessageId"`
	NewMessageID       string `json:"newMessageId"`
	Reason             string `json:"reason"`
	Position           int    `json:"position"`
	Prompt             []struct {
		Text string `json:"text"`
	} `json:"prompt"`
}

// QueueNote decodes a prompt-queue notification's params.
func (f Frame) QueueNote(t testing.TB) QueueNote {
	t.Helper()
	return params[QueueNote](t, f)
}

func params[T any](t testing.TB, f Frame) T {
	t.Helper()
	var v T
	f.DecodeParams(t, &v)
	return v
}
