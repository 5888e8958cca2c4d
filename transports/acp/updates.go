package acp

import "github.com/troupehq/troupe/transports/acpupdate"

// The session/update frame: the params ACP sends an update in, with the
// event it comes from. The updates themselves are acpupdate's.

type updateParams struct {
	SessionID string      `json:"sessionId"`
	Update    any         `json:"update"`
	Meta      *updateMeta `json:"_meta,omitempty"`
}

type updateMeta struct {
	Hydra stamp `json:"hydra-acp"`
}

// stamp names where an update stands: MessageID is the update's id
// (acpupdate.UpdateID, the anchor session/attach after_message takes; a
// state update's is its event's); RecordedAt is the event's time in epoch
// ms, the same live and on replay.
type stamp struct {
	MessageID  string `json:"messageId"`
	RecordedAt int64  `json:"recordedAt"`
}

// reanchor gives p's update id: a coalesced update stands for the last
// of those it joins.
func reanchor(p *updateParams, id string) {
	at := int64(0)
	if p.Meta != nil {
		at = p.Meta.Hydra.RecordedAt
	}
	p.Meta = &updateMeta{Hydra: stamp{MessageID: id, RecordedAt: at}}
	acpupdate.SetID(p.Update, id)
}
