package rpc

import "github.com/troupehq/troupe/runtime/jsontext"

// Full partials: the message as pi streams it. The closed blocks are kept
// encoded in head, the open one as its start, its escaped text and, for a
// tool call, its arguments so far (argsPrefix) and their raw text
// (`partialArgs`, as pi carries it until the call ends).

// frame is the message around its content; usage and stopReason are
// pi's initial values until the message ends.
type frame struct {
	API        string    `json:"api"`
	Provider   string    `json:"provider"`
	Model      string    `json:"model"`
	Usage      usageJSON `json:"usage"`
	StopReason string    `json:"stopReason"`
	Timestamp  int64     `json:"timestamp"`
}

func (s *streaming) encodeFrame() {
	s.head = []byte(`{"role":"assistant","content":[`)
	enc, _ := marshal(frame{API: api, Provider: s.provider, Model: s.model, StopReason: "stop", Timestamp: s.ts})
	// enc is {"api":…}: the tail continues the message after the content.
	s.tail = append([]byte{']', ','}, enc[1:]...)
}

const partialArgsKey = `,"partialArgs":"`

func (b *block) encodeStart() {
	switch b.kind {
	case "text":
		b.start = []byte(`{"type":"text","text":"`)
	case "thinking":
		b.start = []byte(`{"type":"thinking","thinking":"`)
	case "toolCall":
		b.start = append([]byte(`{"type":"toolCall","id":`), jsontext.AppendString(nil, b.id, false)...)
		b.start = append(b.start, `,"name":`...)
		b.start = jsontext.AppendString(b.start, b.name, false)
		b.start = append(b.start, `,"arguments":`...)
		b.args = &argsPrefix{}
	}
}

// closed is a block's final JSON: a tool call's arguments parsed whole.
func (b *block) closed() []byte {
	if b.kind == "toolCall" {
		enc, _ := marshal(toolCallBlock{Type: "toolCall", ID: b.id, Name: b.name, Arguments: argsJSON(string(b.src.Text))})
		return enc
	}
	out := make([]byte, 0, len(b.start)+len(b.esc)+2)
	out = append(append(out, b.start...), b.esc...)
	return append(out, '"', '}')
}

func (s *streaming) closeFull(b *block) {
	if len(s.blocks) > 1 {
		s.head = append(s.head, ',')
	}
	s.head = append(s.head, b.closed()...)
	b.args = nil
}

func (s *streaming) fullLen() int {
	n := len(s.head) + len(s.tail)
	b := s.cur()
	if b == nil {
		return n
	}
	if len(s.blocks) > 1 {
		n++
	}
	n += len(b.start) + len(b.esc) + 2
	if b.args != nil {
		n += b.args.renderLen() + len(partialArgsKey)
	}
	return n
}

func (s *streaming) appendFull(dst []byte) []byte {
	dst = append(dst, s.head...)
	if b := s.cur(); b != nil {
		if len(s.blocks) > 1 {
			dst = append(dst, ',')
		}
		dst = append(dst, b.start...)
		if b.args != nil {
			dst = b.args.render(dst)
			dst = append(dst, partialArgsKey...)
		}
		dst = append(dst, b.esc...)
		dst = append(dst, '"', '}')
	}
	return append(dst, s.tail...)
}
