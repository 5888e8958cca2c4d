package event

import (
	"bytes"
	"encoding/json"
)

// AttentionDelta is one change to a session's attention flags. Without
// Clear it raises Flag, or replaces the payload of the flag with Flag's
// Source and Reason (which keeps its place and RaisedAt). With Clear it
// drops the flags matching Flag's Source and Reason, an empty one
// matching any.
type AttentionDelta struct {
	Clear bool          `json:"clear,omitempty"`
	Flag  AttentionFlag `json:"flag"`
}

// Apply is the flag set after the event recorded at (epoch ms), given
// the set before it, cur: the event's change applied, or, for an event
// that carries the whole set, that set. cur is not modified.
func (p *AttentionPayload) Apply(cur []AttentionFlag, at int64) []AttentionFlag {
	if p.Change == nil {
		return p.All(at)
	}
	next, _ := p.Change.Apply(cur)
	return next
}

// Apply is cur after d, and whether it differs; cur is not modified.
func (d AttentionDelta) Apply(cur []AttentionFlag) ([]AttentionFlag, bool) {
	out := make([]AttentionFlag, 0, len(cur)+1)
	changed, found := false, false
	for _, f := range cur {
		if d.Clear {
			if (d.Flag.Source == "" || f.Source == d.Flag.Source) && (d.Flag.Reason == "" || f.Reason == d.Flag.Reason) {
				changed = true
				continue
			}
		} else if f.Source == d.Flag.Source && f.Reason == d.Flag.Reason {
			found = true
			if !samePayload(f.Payload, d.Flag.Payload) {
				f.Payload, changed = d.Flag.Payload, true
			}
		}
		out = append(out, f)
	}
	if !d.Clear && !found {
		out = append(out, d.Flag)
		changed = true
	}
	return out, changed
}

// samePayload compares two payloads as compact JSON.
func samePayload(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
