package acp

import (
	"strconv"
	"unicode/utf8"
)

// appendChunkFrame appends the session/update notification of one
// message chunk, byte for byte what json.Marshal makes of
// newNotification("session/update", &updateParams{…, &chunk{…}}): the
// hot path of a streaming reply, built without reflection.
func appendChunkFrame(dst []byte, sessionID, kind, text, messageID string, seq, recordedAt int64) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`...)
	dst = appendJSONString(dst, sessionID)
	dst = append(dst, `,"update":{"sessionUpdate":`...)
	dst = appendJSONString(dst, kind)
	dst = append(dst, `,"content":{"type":"text"`...)
	if text != "" {
		dst = append(dst, `,"text":`...)
		dst = appendJSONString(dst, text)
	}
	dst = append(dst, '}')
	if messageID != "" {
		dst = append(dst, `,"messageId":`...)
		dst = appendJSONString(dst, messageID)
	}
	dst = append(dst, `},"_meta":{"hydra-acp":{"messageId":"ev-`...)
	dst = strconv.AppendInt(dst, seq, 10)
	dst = append(dst, `","recordedAt":`...)
	dst = strconv.AppendInt(dst, recordedAt, 10)
	return append(dst, "}}}}"...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as encoding/json does by default
// (HTML characters escaped, invalid UTF-8 as U+FFFD, U+2028 and U+2029
// escaped), so hand-built frames equal marshalled ones.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
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
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
