package rpc

import (
	"strconv"

	"github.com/troupehq/troupe/persistence/event"
)

// streaming is the assistant message of the current step while it
// streams. Its skeleton (see the package doc) is re-encoded only when a
// block opens, so a delta costs one small line.
type streaming struct {
	msgID, provider, model string
	ts                     int64
	blocks                 []*block
	skel                   []byte
	prefix                 []byte // the delta line up to the delta text
	suffix                 []byte
	open                   bool // the last block still streams
}

type block struct {
	kind     string // text | thinking | toolCall
	id, name string
	buf      []byte
}

func newStreaming(id, provider, model string, ts int64) *streaming {
	s := &streaming{msgID: id, provider: provider, model: model, ts: ts}
	s.encodeSkeleton()
	return s
}

type skelBlock struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

type skeleton struct {
	Role      string      `json:"role"`
	Content   []skelBlock `json:"content"`
	API       string      `json:"api"`
	Provider  string      `json:"provider"`
	Model     string      `json:"model"`
	Timestamp int64       `json:"timestamp"`
}

func (s *streaming) encodeSkeleton() {
	sk := skeleton{Role: "assistant", Content: []skelBlock{}, API: api, Provider: s.provider, Model: s.model, Timestamp: s.ts}
	for _, b := range s.blocks {
		sk.Content = append(sk.Content, skelBlock{Type: b.kind, ID: b.id, Name: b.name})
	}
	s.skel, _ = marshal(sk)
}

func (s *streaming) startLine() []byte {
	b := append([]byte(`{"type":"message_start","message":`), s.skel...)
	return append(b, '}')
}

func (s *streaming) cur() *block {
	if !s.open || len(s.blocks) == 0 {
		return nil
	}
	return s.blocks[len(s.blocks)-1]
}

var deltaKinds = map[string]string{event.ChannelText: "text", event.ChannelThinking: "thinking", event.ChannelToolCallArgs: "toolCall"}

// delta shows one piece of the message, opening and closing blocks as the
// channel (or the tool call) changes.
func (s *streaming) delta(f *fold, p event.MessageDeltaPayload) {
	kind, ok := deltaKinds[p.Channel]
	if !ok || p.MessageID != s.msgID {
		return
	}
	b := s.cur()
	if b == nil || b.kind != kind || (kind == "toolCall" && p.ToolCallID != "" && p.ToolCallID != b.id) {
		s.closeBlock(f)
		b = &block{kind: kind, id: p.ToolCallID, name: p.ToolName}
		s.blocks = append(s.blocks, b)
		s.open = true
		s.encodeSkeleton()
		idx := strconv.Itoa(len(s.blocks) - 1)
		f.emit(s.update(`{"type":"` + lower(kind) + `_start","contentIndex":` + idx + `,"partial":`))
		s.prefix = append(append([]byte(`{"type":"message_update","message":`), s.skel...),
			`,"assistantMessageEvent":{"type":"`+lower(kind)+`_delta","contentIndex":`+idx+`,"delta":`...)
		s.suffix = append(append([]byte(`,"partial":`), s.skel...), "}}"...)
	}
	if p.Text == "" {
		return
	}
	b.buf = append(b.buf, p.Text...)
	line := make([]byte, 0, len(s.prefix)+len(p.Text)+8+len(s.suffix))
	line = appendString(append(line, s.prefix...), p.Text)
	f.emit(append(line, s.suffix...))
}

func lower(kind string) string {
	if kind == "toolCall" {
		return "toolcall"
	}
	return kind
}

// update wraps an assistantMessageEvent opening (which ends with
// `"partial":`) into a message_update line.
func (s *streaming) update(ev string) []byte {
	b := append([]byte(`{"type":"message_update","message":`), s.skel...)
	b = append(b, `,"assistantMessageEvent":`...)
	b = append(b, ev...)
	b = append(b, s.skel...)
	return append(b, "}}"...)
}

// closeBlock ends the current block with its whole content.
func (s *streaming) closeBlock(f *fold) {
	b := s.cur()
	if b == nil {
		return
	}
	s.open = false
	if !f.live() {
		return
	}
	idx := strconv.Itoa(len(s.blocks) - 1)
	var extra []byte
	switch b.kind {
	case "toolCall":
		extra, _ = marshal(toolCallBlock{Type: "toolCall", ID: b.id, Name: b.name, Arguments: argsJSON(string(b.buf))})
		extra = append([]byte(`,"toolCall":`), extra...)
	default:
		text, _ := marshal(string(b.buf))
		extra = append([]byte(`,"content":`), text...)
	}
	f.emit(s.update(`{"type":"` + lower(b.kind) + `_end","contentIndex":` + idx + string(extra) + `,"partial":`))
}

// partialMessage is what streamed of a message that never completed (a
// cancel or an error cut it).
func (s *streaming) partialMessage() *assistantMessage {
	m := &assistantMessage{Role: "assistant", API: api, Provider: s.provider, Model: s.model, Timestamp: s.ts, entryID: s.msgID, Content: []any{}}
	for _, b := range s.blocks {
		switch b.kind {
		case "text":
			m.Content = append(m.Content, textBlock{Type: "text", Text: string(b.buf)})
			m.text += string(b.buf)
		case "thinking":
			m.Content = append(m.Content, thinkingBlock{Type: "thinking", Thinking: string(b.buf)})
		case "toolCall":
			m.Content = append(m.Content, toolCallBlock{Type: "toolCall", ID: b.id, Name: b.name, Arguments: argsJSON(string(b.buf))})
		}
	}
	return m
}
