package rpc

import (
	"slices"
	"strconv"

	"github.com/troupehq/troupe/runtime/jsontext"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/projection"
)

// streaming is the assistant message of the current step while it
// streams, kept encoded so that a delta line is built by copying rather
// than by marshalling: in full mode the message's JSON up to the open
// block (head) and after it (tail), and the open block's text escaped as
// it arrives; in skeleton mode the skeleton, re-encoded only when a block
// opens.
type streaming struct {
	msgID, provider, model string
	ts                     int64
	mode                   Partials
	blocks                 []*block
	open                   bool // the last block still streams
	skel                   []byte
	head, tail             []byte
	ev                     []byte // scratch: the assistantMessageEvent of a line
	line                   []byte // scratch: the line (see updateLine)
}

type block struct {
	kind     string // text | thinking | toolCall
	id, name string
	src      *projection.Block // the raw text (a tool call's arguments) so far
	esc      []byte            // src's text escaped as JSON string content
	shown    int               // of esc, what delta lines carried
	start    []byte            // full mode: the block's JSON up to its text or arguments
	args     *argsPrefix
}

func newStreaming(id, provider, model string, ts int64, mode Partials) *streaming {
	s := &streaming{msgID: id, provider: provider, model: model, ts: ts, mode: mode}
	if mode == PartialsSkeleton {
		s.encodeSkeleton()
	} else {
		s.encodeFrame()
	}
	return s
}

const (
	updatePrefix = `{"type":"message_update","message":`
	eventKey     = `,"assistantMessageEvent":`
	partialKey   = `,"partial":`
)

func (s *streaming) startLine() []byte {
	b := make([]byte, 0, 34+s.partialLen())
	b = append(b, `{"type":"message_start","message":`...)
	return append(s.appendPartial(b), '}')
}

// updateLine is the message_update line for an assistantMessageEvent
// given without its closing brace; the partial goes in twice, as `message`
// and as the event's `partial`. The line is built in a scratch buffer
// valid until the next call: emit copies it.
func (s *streaming) updateLine(ev []byte) []byte {
	n := s.partialLen()
	line := slices.Grow(s.line[:0], len(updatePrefix)+2*n+len(eventKey)+len(ev)+len(partialKey)+2)
	line = append(line, updatePrefix...)
	line = s.appendPartial(line)
	line = append(line, eventKey...)
	line = append(line, ev...)
	line = append(line, partialKey...)
	line = s.appendPartial(line)
	s.line = append(line, '}', '}')
	return s.line
}

// event starts the scratch assistantMessageEvent {"type":…,"contentIndex":…
func (s *streaming) event(kind, suffix string) []byte {
	s.ev = append(s.ev[:0], `{"type":"`...)
	s.ev = append(s.ev, lower(kind)...)
	s.ev = append(s.ev, suffix...)
	s.ev = append(s.ev, `","contentIndex":`...)
	return strconv.AppendInt(s.ev, int64(len(s.blocks)-1), 10)
}

func (s *streaming) cur() *block {
	if !s.open || len(s.blocks) == 0 {
		return nil
	}
	return s.blocks[len(s.blocks)-1]
}

var deltaKinds = map[string]string{event.ChannelText: "text", event.ChannelThinking: "thinking", event.ChannelToolCallArgs: "toolCall"}

// delta shows one piece of the message, text, which the view folded into
// src; a block the view opened ends the one before. While a batch merges
// deltas (or stdout is behind) it waits to go out with the next ones.
func (s *streaming) delta(f *fold, src *projection.Block, opened bool, text string) {
	kind := deltaKinds[src.Channel]
	b := s.cur()
	if opened || b == nil || b.src != src {
		s.closeBlock(f)
		b = s.openBlock(kind, src)
		f.emit(s.updateLine(s.event(kind, "_start")))
	}
	if text == "" {
		return
	}
	b.esc = jsontext.AppendEscaped(b.esc, text, false)
	if b.args != nil {
		b.args.write(text)
	}
	if f.merging {
		f.deferred, f.merged = s, true
		return
	}
	if f.behind != nil && f.behind() {
		f.deferred = s
		return
	}
	s.showDelta(f)
}

// showDelta writes the open block's text not shown yet as one delta: the
// last delta, or several merged while stdout was behind (see meter).
func (s *streaming) showDelta(f *fold) {
	b := s.cur()
	if b == nil || b.shown == len(b.esc) {
		return
	}
	ev := append(s.event(b.kind, "_delta"), `,"delta":"`...)
	ev = append(ev, b.esc[b.shown:]...)
	b.shown = len(b.esc)
	s.ev = append(ev, '"')
	f.emit(s.updateLine(s.ev))
}

func (s *streaming) openBlock(kind string, src *projection.Block) *block {
	b := &block{kind: kind, id: src.ToolCallID, name: src.ToolName, src: src}
	s.blocks = append(s.blocks, b)
	s.open = true
	if s.mode == PartialsSkeleton {
		s.encodeSkeleton()
	} else {
		b.encodeStart()
	}
	return b
}

func lower(kind string) string {
	if kind == "toolCall" {
		return "toolcall"
	}
	return kind
}

// closeBlock ends the current block with its whole content.
func (s *streaming) closeBlock(f *fold) {
	b := s.cur()
	if b == nil {
		return
	}
	if f.deferred == s && f.live() {
		f.deferred = nil
		s.showDelta(f)
	}
	if s.mode == PartialsFull {
		s.closeFull(b)
	}
	s.open = false
	if !f.live() {
		return
	}
	ev := s.event(b.kind, "_end")
	if b.kind == "toolCall" {
		ev = append(ev, `,"toolCall":`...)
		ev = append(ev, b.closed()...)
	} else {
		ev = append(ev, `,"content":"`...)
		ev = append(append(ev, b.esc...), '"')
	}
	s.ev = ev
	f.emit(s.updateLine(s.ev))
}

// partialMessage is what streamed of a message that never completed (a
// cancel or an error cut it).
func (s *streaming) partialMessage() *assistantMessage {
	m := &assistantMessage{Role: "assistant", API: api, Provider: s.provider, Model: s.model, Timestamp: s.ts, entryID: s.msgID, Content: []any{}}
	for _, b := range s.blocks {
		switch b.kind {
		case "text":
			m.Content = append(m.Content, textBlock{Type: "text", Text: string(b.src.Text)})
			m.text += string(b.src.Text)
		case "thinking":
			m.Content = append(m.Content, thinkingBlock{Type: "thinking", Thinking: string(b.src.Text)})
		case "toolCall":
			m.Content = append(m.Content, toolCallBlock{Type: "toolCall", ID: b.id, Name: b.name, Arguments: argsJSON(string(b.src.Text))})
		}
	}
	return m
}

func (s *streaming) partialLen() int {
	if s.mode == PartialsSkeleton {
		return len(s.skel)
	}
	return s.fullLen()
}

func (s *streaming) appendPartial(dst []byte) []byte {
	if s.mode == PartialsSkeleton {
		return append(dst, s.skel...)
	}
	return s.appendFull(dst)
}
