package rest

import (
	"encoding/json"
	"strconv"

	"github.com/troupehq/troupe/runtime/jsontext"

	"github.com/troupehq/troupe/persistence/event"
)

// deltaLine appends the history line of a text or thinking delta to buf
// without building the generic update: deltas are most of a log, and the
// generic path (a map marshalled by reflection) costs several times more.
// ok is false for a delta the generic path must handle.
func deltaLine(buf []byte, sessionID string, e event.Event) (_ []byte, ok bool) {
	var d event.MessageDeltaPayload
	if json.Unmarshal(e.Payload, &d) != nil {
		return buf, false
	}
	kind := ""
	switch d.Channel {
	case event.ChannelText:
		kind = "agent_message_chunk"
	case event.ChannelThinking:
		kind = "agent_thought_chunk"
	default:
		return buf, false
	}
	buf = append(buf, `{"method":"session/update","params":{"sessionId":`...)
	buf = jsontext.AppendString(buf, sessionID, true)
	buf = append(buf, `,"update":{"content":{"text":`...)
	buf = jsontext.AppendString(buf, d.Text, true)
	buf = append(buf, `,"type":"text"}`...)
	if d.MessageID != "" {
		buf = append(buf, `,"messageId":`...)
		buf = jsontext.AppendString(buf, d.MessageID, true)
	}
	buf = append(buf, `,"sessionUpdate":"`...)
	buf = append(buf, kind...)
	buf = append(buf, `"}},"recordedAt":`...)
	buf = strconv.AppendInt(buf, e.RecordedAt.UnixMilli(), 10)
	buf = append(buf, `,"seq":`...)
	buf = strconv.AppendInt(buf, e.Seq, 10)
	return append(buf, "}\n"...), true
}
