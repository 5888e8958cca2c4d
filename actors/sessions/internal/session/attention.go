package session

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence/event"
)

// The bounds of one session's attention flags. A flag means "the user owes
// this session an answer": a handful is the norm, so these are far above
// any real use and only stop a raiser filling the store (the spec names no
// limits). A flag's size is its source, reason and payload bytes.
const (
	MaxAttentionFlags     = 64
	MaxAttentionFlagBytes = 64 << 10
	MaxAttentionBytes     = 256 << 10
)

// ErrAttentionLimit refuses a set past the bounds above; the set is
// unchanged. Transports answer it as invalid params (400 over REST).
var ErrAttentionLimit = errors.New("attention flags limit")

// SetAttention raises, updates or clears attention flags; the session
// serializes the changes, so two raisers never lose each other's flag. The
// reply is *AttentionReply, once the new set is durable.
type SetAttention struct {
	Source, Reason string
	Payload        json.RawMessage // set: the flag's payload (null when nil)
	// Clear drops (Source, Reason); with Reason empty, every flag of
	// Source; with Source empty too, every flag.
	Clear bool
}

// AttentionReply is the flag set after a SetAttention; Changed is false
// when the request was a no-op (no event recorded).
type AttentionReply struct {
	Flags   []event.AttentionFlag
	Changed bool
	Err     error
}

func (*SetAttention) isRequest() {}

// setAttention records the change alone (attention.changed carries the
// delta, never the set), so storage grows with what changed.
func (s *session) setAttention(ctx actor.Context, sender *actor.PID, m *SetAttention) {
	delta := event.AttentionDelta{Clear: m.Clear, Flag: event.AttentionFlag{Source: m.Source, Reason: m.Reason}}
	if !m.Clear {
		delta.Flag.RaisedAt, delta.Flag.Payload = s.cfg.Now().UnixMilli(), m.Payload
	}
	next, changed := delta.Apply(s.f.st.Attention)
	if !changed {
		s.reply(ctx, sender, &AttentionReply{Flags: s.f.st.Attention})
		return
	}
	if !m.Clear {
		if err := withinAttentionBounds(next, delta.Flag); err != nil {
			s.reply(ctx, sender, &AttentionReply{Flags: s.f.st.Attention, Err: err})
			return
		}
	}
	d, err := event.NewDraft(event.AttentionChanged, event.AttentionPayload{Change: &delta})
	if err != nil {
		s.reply(ctx, sender, &AttentionReply{Err: err})
		return
	}
	s.commit(ctx, []event.Draft{d}, sender, &AttentionReply{Flags: next, Changed: true})
}

// withinAttentionBounds checks the set a raise of f would leave.
func withinAttentionBounds(next []event.AttentionFlag, f event.AttentionFlag) error {
	if n := flagBytes(f); n > MaxAttentionFlagBytes {
		return fmt.Errorf("%w: flag %q is %d bytes, more than %d", ErrAttentionLimit, f.Reason, n, MaxAttentionFlagBytes)
	}
	if len(next) > MaxAttentionFlags {
		return fmt.Errorf("%w: a session holds at most %d flags; clear one first", ErrAttentionLimit, MaxAttentionFlags)
	}
	total := 0
	for _, g := range next {
		total += flagBytes(g)
	}
	if total > MaxAttentionBytes {
		return fmt.Errorf("%w: a session's flags hold at most %d bytes; this set would make %d", ErrAttentionLimit, MaxAttentionBytes, total)
	}
	return nil
}

func flagBytes(f event.AttentionFlag) int { return len(f.Source) + len(f.Reason) + len(f.Payload) }
