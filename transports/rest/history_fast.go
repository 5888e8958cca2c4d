package rest

import (
	"encoding/json"
	"strconv"

	"github.com/troupehq/troupe/runtime/jsontext"
	"github.com/troupehq/troupe/transports/acpupdate"

	"github.com/troupehq/troupe/persistence/event"
)

// deltaLine appends the history line of a text or thinking delta to buf
// without building the generic update: deltas are most of a log, and the
// generic path (an update marshalled by reflection) costs several times more.
// ok is false for a delta the generic path must handle. streamingID is the
// id the delta's message streams under (projection.View.StreamingID).
func deltaLine(buf []byte, sessionID string, e event.Event, streamingID func(runID, msgID string) string) (_ []byte, ok bool) {
	var d event.MessageDeltaPayload
	if json.Unmarshal(e.Payload, &d) != nil {
		return buf, false
	}
	switch d.Channel {
	case event.ChannelText, event.ChannelThinking:
	default:
		return buf, false
	}
	buf = append(buf, `{"method":"session/update","params":{"sessionId":`...)
	buf = jsontext.AppendString(buf, sessionID, true)
	buf = append(buf, `,"update":`...)
	buf = acpupdate.AppendChunk(buf, acpupdate.ChunkKind(d.Channel), d.Text, acpupdate.EventID(e.Seq), streamingID(d.RunID, d.MessageID))
	buf = append(buf, `},"recordedAt":`...)
	buf = strconv.AppendInt(buf, e.RecordedAt.UnixMilli(), 10)
	buf = append(buf, `,"seq":`...)
	buf = strconv.AppendInt(buf, e.Seq, 10)
	return append(buf, "}\n"...), true
}
