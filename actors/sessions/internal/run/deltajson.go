package run

import (
	"strconv"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/jsontext"
)

// encodeDelta is json.Marshal(p), byte for byte, without reflection: every
// streamed chunk is one, and encoding/json was most of the stream
// goroutine's own time. deltajson_test.go holds it to json.Marshal.
func encodeDelta(p event.MessageDeltaPayload) []byte {
	b := make([]byte, 0, 96+len(p.RunID)+len(p.MessageID)+len(p.Text)+len(p.ToolCallID)+len(p.ToolName))
	b = append(b, `{"run_id":`...)
	b = jsontext.AppendString(b, p.RunID, true)
	b = append(b, `,"message_id":`...)
	b = jsontext.AppendString(b, p.MessageID, true)
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, int64(p.Index), 10)
	b = append(b, `,"channel":`...)
	b = jsontext.AppendString(b, p.Channel, true)
	b = append(b, `,"text":`...)
	b = jsontext.AppendString(b, p.Text, true)
	if p.ToolCallID != "" {
		b = append(b, `,"tool_call_id":`...)
		b = jsontext.AppendString(b, p.ToolCallID, true)
	}
	if p.ToolName != "" {
		b = append(b, `,"tool_name":`...)
		b = jsontext.AppendString(b, p.ToolName, true)
	}
	return append(b, '}')
}
