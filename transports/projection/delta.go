package projection

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/troupehq/troupe/runtime/jsontext"

	"github.com/troupehq/troupe/persistence/event"
)

// decodeDelta decodes a message.delta payload into d exactly as
// json.Unmarshal into a zero payload would. Deltas are most of a log and
// each is decoded when shown, so the payload's usual shape (a flat object
// of the payload's own keys with string and integer values) is read by
// hand, and the strings a reply's deltas share (run, message, channel,
// tool call) keep d's previous copies rather than allocating new ones.
// Anything else (another key, spelling or type, null, malformed JSON) goes
// to json.Unmarshal.
//
// It tokenizes with the one JSON scanner's own primitives
// (jsontext.SkipSpace, jsontext.ScanString), not through a Scanner: read
// with a Scanner a folded delta measured 255-285 ns against 212 ns for
// these index-passing helpers, which the compiler inlines
// (BenchmarkViewDelta/folded, same machine, A/B).
func decodeDelta(raw []byte, d *event.MessageDeltaPayload) error {
	prev := *d
	*d = event.MessageDeltaPayload{}
	if decodeDeltaFast(raw, d, &prev) {
		return nil
	}
	*d = event.MessageDeltaPayload{}
	return json.Unmarshal(raw, d)
}

// decodeDeltaFast reports false, leaving d partly set, on anything it does
// not read exactly as encoding/json would.
func decodeDeltaFast(raw []byte, d, prev *event.MessageDeltaPayload) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	for {
		key, next, ok := plainString(raw, i)
		if !ok {
			return false
		}
		i = skipSpace(raw, next)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = skipSpace(raw, i+1)
		if string(key) == "index" {
			if i, ok = readInt(raw, i, &d.Index); !ok {
				return false
			}
		} else {
			var s []byte
			var esc bool
			if s, esc, i, ok = readString(raw, i); !ok {
				return false
			}
			if !setField(d, prev, string(key), s, esc) {
				return false
			}
		}
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return skipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
}

// setField stores a string field by its exact key; the fields deltas
// share reuse the previous delta's copy when they are the same.
func setField(d, prev *event.MessageDeltaPayload, key string, raw []byte, esc bool) bool {
	var dst *string
	var old string
	switch key {
	case "text":
		dst = &d.Text
	case "run_id":
		dst, old = &d.RunID, prev.RunID
	case "message_id":
		dst, old = &d.MessageID, prev.MessageID
	case "channel":
		dst, old = &d.Channel, prev.Channel
	case "tool_call_id":
		dst, old = &d.ToolCallID, prev.ToolCallID
	case "tool_name":
		dst, old = &d.ToolName, prev.ToolName
	default:
		return false
	}
	switch {
	case esc:
		s, ok := jsontext.AppendUnescaped(make([]byte, 0, len(raw)), raw)
		if !ok {
			return false
		}
		*dst = string(s)
	case old != "" && string(raw) == old:
		*dst = old
	default:
		*dst = string(raw)
	}
	return true
}

func skipSpace(b []byte, i int) int { return jsontext.SkipSpace(b, i) }

// plainString reads a string at b[i] that needs no decoding: ASCII
// without escapes or control characters (the payload's keys). It is not
// jsontext.ScanString, which reads any string, on purpose: this loop is
// small enough to be inlined into decodeDeltaFast, ScanString within it
// is not (measured: 208 against 225 ns a folded delta).
func plainString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	for j := i + 1; j < len(b); j++ {
		c := b[j]
		switch {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c < 0x20 || c == '\\' || c >= utf8.RuneSelf:
			return nil, i, false
		}
	}
	return nil, i, false
}

// readString reads a JSON string at b[i]: its raw content, whether it has
// escapes to decode, and the index after it. Control characters and
// invalid UTF-8 (which encoding/json replaces) are refused.
func readString(b []byte, i int) (s []byte, esc bool, next int, ok bool) {
	s, esc, plain, next, ok := jsontext.ScanString(b, i)
	if !ok || (!plain && (hasControl(s) || !utf8.Valid(s))) {
		return nil, false, i, false
	}
	return s, esc, next, true
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// readInt reads a JSON integer at b[i] into dst: no fraction, exponent or
// leading zero, within an int.
func readInt(b []byte, i int, dst *int) (int, bool) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	start := j
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == start || (b[start] == '0' && j > start+1) {
		return i, false
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return i, false
	}
	n, err := strconv.ParseInt(string(b[i:j]), 10, strconv.IntSize)
	if err != nil {
		return i, false
	}
	*dst = int(n)
	return j, true
}
