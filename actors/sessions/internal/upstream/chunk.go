package upstream

import (
	"bytes"

	acp "github.com/coder/acp-go-sdk"
	"github.com/troupehq/troupe/runtime/jsontext"
)

// chunkReader reads the one message an agent sends by the thousand in a
// turn, a session/update carrying a text chunk, in one pass with the
// project's JSON scanner. The SDK's types read it in five (the envelope,
// the update's map, its variant, the content's map and its variant),
// which was the most of the daemon's time per streamed update. What it
// keeps is all a turn reads of a chunk: its kind and text. Anything else
// (another update, a request, an answer, content that is not text, a
// line it cannot read) is left to the general path. The conn's reader
// goroutine owns it.
type chunkReader struct{ s jsontext.Scanner }

var chunkMark = []byte(`_chunk"`)

// read reads line when it is an agent's text chunk.
func (r *chunkReader) read(line []byte) (acp.SessionNotification, bool) {
	if !bytes.Contains(line, chunkMark) {
		return acp.SessionNotification{}, false
	}
	s := &r.s
	s.Reset(line)
	var method, sid, kind, ctype, text []byte
	hasText := false
	if !s.EnterObject() {
		return acp.SessionNotification{}, false
	}
	for first := true; ; {
		key, ok := s.NextKey(&first)
		if !ok {
			break
		}
		switch string(key) {
		case "id":
			return acp.SessionNotification{}, false // a request, not a notification
		case "method":
			method, _ = s.Str()
		case "params":
			if !s.EnterObject() {
				return acp.SessionNotification{}, false
			}
			for first := true; ; {
				key, ok := s.NextKey(&first)
				if !ok {
					break
				}
				switch string(key) {
				case "sessionId":
					sid, _ = s.Str()
				case "update":
					if !s.EnterObject() {
						return acp.SessionNotification{}, false
					}
					for first := true; ; {
						key, ok := s.NextKey(&first)
						if !ok {
							break
						}
						switch string(key) {
						case "sessionUpdate":
							kind, _ = s.Str()
						case "content":
							if !s.EnterObject() {
								return acp.SessionNotification{}, false
							}
							for first := true; ; {
								key, ok := s.NextKey(&first)
								if !ok {
									break
								}
								switch string(key) {
								case "type":
									ctype, _ = s.Str()
								case "text":
									text, hasText = s.Str()
								default:
									s.Skip()
								}
							}
						default:
							s.Skip()
						}
					}
				default:
					s.Skip()
				}
			}
		default:
			s.Skip()
		}
	}
	if s.End() != nil || string(method) != "session/update" || string(ctype) != "text" || !hasText {
		return acp.SessionNotification{}, false
	}
	n := acp.SessionNotification{SessionId: acp.SessionId(sid)}
	switch string(kind) {
	case "agent_message_chunk":
		n.Update = acp.UpdateAgentMessageText(string(text))
	case "agent_thought_chunk":
		n.Update = acp.UpdateAgentThoughtText(string(text))
	default:
		return acp.SessionNotification{}, false
	}
	return n, true
}
