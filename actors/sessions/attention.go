package sessions

import (
	"context"

	"github.com/troupehq/troupe/actors/sessions/internal/session"
	"github.com/troupehq/troupe/persistence/event"
)

// AttentionChange raises (or updates) or clears flags; see
// session.SetAttention.
type AttentionChange = session.SetAttention

// AttentionResult is the session's flag set after a change.
type AttentionResult struct {
	Flags   []event.AttentionFlag
	Changed bool
}

func attentionCall(m AttentionChange) call[AttentionResult] {
	return call[AttentionResult]{msg: &m, read: func(res any) (AttentionResult, error) {
		r, err := replyAs[*session.AttentionReply](res, "attention change")
		if err != nil {
			return AttentionResult{}, err
		}
		return AttentionResult{Flags: r.Flags, Changed: r.Changed}, r.Err
	}}
}

// SetAttention applies a change to session id's attention flags (a cold
// session is brought back for it) and returns the set once durable.
func (c *Client) SetAttention(ctx context.Context, id string, m AttentionChange) (AttentionResult, error) {
	return ask(ctx, c, id, attentionCall(m))
}

// SetAttention is Client.SetAttention.
func (a Async) SetAttention(id string, m AttentionChange, then func(AttentionResult, error)) {
	send(a, id, attentionCall(m), then)
}
