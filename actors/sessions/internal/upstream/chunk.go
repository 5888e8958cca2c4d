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
	r.s.Reset(line)
	c := chunkFields{s: &r.s}
	if !fields(c.s, c.envelope) || c.s.End() != nil ||
		string(c.method) != "session/update" || string(c.ctype) != "text" || !c.hasText {
		return acp.SessionNotification{}, false
	}
	n := acp.SessionNotification{SessionId: acp.SessionId(c.sid)}
	switch string(c.kind) {
	case "agent_message_chunk":
		n.Update = acp.UpdateAgentMessageText(string(c.text))
	case "agent_thought_chunk":
		n.Update = acp.UpdateAgentThoughtText(string(c.text))
	default:
		return acp.SessionNotification{}, false
	}
	return n, true
}

// fields enters the object at s and hands each of its keys to field,
// which reads the key's value or skips it; field answering false (or a
// value that is no object) ends the read as not a chunk.
func fields(s *jsontext.Scanner, field func(key []byte) bool) bool {
	if !s.EnterObject() {
		return false
	}
	for first := true; ; {
		key, ok := s.NextKey(&first)
		if !ok {
			return true
		}
		if !field(key) {
			return false
		}
	}
}

// chunkFields are what one line's read keeps, a method a level of the
// message: the envelope, its params, the update, the update's content.
type chunkFields struct {
	s                              *jsontext.Scanner
	method, sid, kind, ctype, text []byte
	hasText                        bool
}

func (c *chunkFields) envelope(key []byte) bool {
	switch string(key) {
	case "id":
		return false // a request, not a notification
	case "method":
		c.method, _ = c.s.Str()
	case "params":
		return fields(c.s, c.params)
	default:
		c.s.Skip()
	}
	return true
}

func (c *chunkFields) params(key []byte) bool {
	switch string(key) {
	case "sessionId":
		c.sid, _ = c.s.Str()
	case "update":
		return fields(c.s, c.update)
	default:
		c.s.Skip()
	}
	return true
}

func (c *chunkFields) update(key []byte) bool {
	switch string(key) {
	case "sessionUpdate":
		c.kind, _ = c.s.Str()
	case "content":
		return fields(c.s, c.content)
	default:
		c.s.Skip()
	}
	return true
}

func (c *chunkFields) content(key []byte) bool {
	switch string(key) {
	case "type":
		c.ctype, _ = c.s.Str()
	case "text":
		c.text, c.hasText = c.s.Str()
	default:
		c.s.Skip()
	}
	return true
}
