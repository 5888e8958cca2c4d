// Package event defines the canonical event schema: the one log every
// session writes and every transport projects into its own protocol.
//
// It owns the kinds, their payload shapes and the envelope. It must not know
// how events are stored (persistence) or shown (transports).
//
// It also owns the events' vocabulary and event.Pending, the
// pending-prompt fold the queue, the conversation and the transports share.
package event

import (
	"encoding/json"
	"fmt"
	"time"
)

// Event is one entry of a session's log. Seq is per session, starts at 1 and
// has no gaps; it is assigned by the session actor, never by a transport.
type Event struct {
	SessionID  string          `json:"session_id"`
	Seq        int64           `json:"seq"`
	RecordedAt time.Time       `json:"recorded_at"`
	Kind       Kind            `json:"kind"`
	Payload    json.RawMessage `json:"payload"`
}

// Draft is an event before the session gives it a seq and a time.
type Draft struct {
	Kind    Kind            `json:"kind"`
	Payload json.RawMessage `json:"payload"`
}

// NewDraft marshals payload for kind. Payloads are plain structs, so a
// marshal error is a programming error surfaced to the caller, not a panic.
func NewDraft(kind Kind, payload any) (Draft, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return Draft{}, fmt.Errorf("marshal %s payload: %w", kind, err)
	}
	return Draft{Kind: kind, Payload: b}, nil
}

// Decode unmarshals the payload into v.
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Payload, v); err != nil {
		return fmt.Errorf("decode %s payload of %s#%d: %w", e.Kind, e.SessionID, e.Seq, err)
	}
	return nil
}
