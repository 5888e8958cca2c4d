package turn

import (
	"strconv"
	"unicode/utf8"

	"github.com/troupehq/troupe/persistence/event"
)

// encodeDelta is json.Marshal(p), byte for byte, without reflection: every
// streamed chunk is one, and encoding/json was most of the stream
// goroutine's own time. deltajson_test.go holds it to json.Marshal.
func encodeDelta(p event.MessageDeltaPayload) []byte {
	b := make([]byte, 0, 96+len(p.RunID)+len(p.MessageID)+len(p.Text)+len(p.ToolCallID)+len(p.ToolName))
	b = append(b, `{"run_id":`...)
	b = appendJSONString(b, p.RunID)
	b = append(b, `,"message_id":`...)
	b = appendJSONString(b, p.MessageID)
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, int64(p.Index), 10)
	b = append(b, `,"channel":`...)
	b = appendJSONString(b, p.Channel)
	b = append(b, `,"text":`...)
	b = appendJSONString(b, p.Text)
	if p.ToolCallID != "" {
		b = append(b, `,"tool_call_id":`...)
		b = appendJSONString(b, p.ToolCallID)
	}
	if p.ToolName != "" {
		b = append(b, `,"tool_name":`...)
		b = appendJSONString(b, p.ToolName)
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does by default: HTML
// characters escaped, invalid UTF-8 replaced by U+FFFD, U+2028 and U+2029
// escaped.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
