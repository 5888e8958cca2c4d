package session

import (
	"bytes"
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence/event"
)

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

func (s *session) setAttention(ctx actor.Context, sender *actor.PID, m *SetAttention) {
	now := s.cfg.Now().UnixMilli()
	next, changed := nextAttention(s.f.st.Attention, m, now)
	if !changed {
		s.reply(ctx, sender, &AttentionReply{Flags: s.f.st.Attention})
		return
	}
	d, err := event.NewDraft(event.AttentionChanged, event.AttentionPayload{Flags: []string{}, Set: next})
	if err != nil {
		s.reply(ctx, sender, &AttentionReply{Err: err})
		return
	}
	s.commit(ctx, []event.Draft{d}, sender, &AttentionReply{Flags: next, Changed: true})
}

// nextAttention is cur after m, and whether it differs. A flag keeps its
// place and raisedAt when its payload is replaced.
func nextAttention(cur []event.AttentionFlag, m *SetAttention, now int64) ([]event.AttentionFlag, bool) {
	out := make([]event.AttentionFlag, 0, len(cur)+1)
	changed, found := false, false
	for _, f := range cur {
		match := (m.Source == "" || f.Source == m.Source) && (m.Reason == "" || f.Reason == m.Reason)
		if m.Clear && match {
			changed = true
			continue
		}
		if !m.Clear && f.Source == m.Source && f.Reason == m.Reason {
			found = true
			if !samePayload(f.Payload, m.Payload) {
				f.Payload, changed = m.Payload, true
			}
		}
		out = append(out, f)
	}
	if !m.Clear && !found {
		out = append(out, event.AttentionFlag{Source: m.Source, Reason: m.Reason, RaisedAt: now, Payload: m.Payload})
		changed = true
	}
	return out, changed
}

func samePayload(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
