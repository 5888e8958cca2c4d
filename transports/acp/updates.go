package acp

import (
	"strconv"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/projection"
)

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

// The update shapes are acpupdate's, the one mapping of events to updates
// every view shares; the names here keep this package's code short.
type (
	contentBlock       = acpupdate.ContentBlock
	chunk              = acpupdate.Chunk
	toolCallUpdate     = acpupdate.ToolCall
	permissionResolved = acpupdate.PermissionResolved
	configOption       = acpupdate.ConfigOption
)

// The mapping's functions this package's files call, by their short names.

func chunkKind(channel string) string { return acpupdate.ChunkKind(channel) }

func deltaUpdate(shown map[string]bool, d *event.MessageDeltaPayload) any {
	return acpupdate.Delta(shown, d)
}

func toolUpdateOf(shown map[string]bool, call *projection.ToolCall) *toolCallUpdate {
	return acpupdate.Tool(shown, call)
}

func toolState(call *projection.ToolCall) *toolCallUpdate { return acpupdate.ToolState(call) }

func acpBlocks(bs []event.Block) []contentBlock { return acpupdate.Blocks(bs) }

func stopReason(canonical string) string { return acpupdate.StopReason(canonical) }
