package acp

import "strconv"

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
