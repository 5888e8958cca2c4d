package llm

import (
	"fmt"
	"strconv"
)

// Assembler forwards a provider's chunks to a sink and keeps the running
// totals that become the Response. It lives here, not in each provider, so
// that every provider (and every fake of one) follows the same rules: empty
// text is dropped, a tool call's first chunk carries its ID (GeneratedCallID
// when the server sent none) and name, later ones only what is new. Text is
// appended to byte slices rather than concatenated as strings so a long
// reply costs amortised O(n).
//
// The zero value, with Sink set or not, is ready to use. Every method's error
// comes from Sink, wrapped as "sink: ...", so a provider can return it as it
// is.
type Assembler struct {
	// Sink receives every chunk in order; nil means nobody listens.
	Sink func(Chunk) error
	// ID, Model and Finish go to the Response as they are when it is built.
	ID     string
	Model  string
	Finish FinishReason

	content  []byte
	thinking []byte
	calls    []callState
	usage    Usage
	hasUsage bool
}

type callState struct {
	index int
	id    string
	name  string
	args  []byte
}

// GeneratedCallID is the ID given to a tool call the server sent without one
// (old llama-server sends ""). It depends only on the index so that replaying
// the same reply gives the same ID.
func GeneratedCallID(index int) string { return "call_" + strconv.Itoa(index) }

// Text adds a piece of the reply (kind ChunkText) or of the reasoning
// (ChunkThinking).
func (a *Assembler) Text(kind ChunkKind, s string) error {
	if s == "" {
		return nil
	}
	buf := a.buffer(kind)
	*buf = append(*buf, s...)
	return a.emit(Chunk{Kind: kind, Text: s})
}

// TextBytes is Text for a parser's buffer, which may be reused. Without a
// Sink no string is needed, so none is made.
func (a *Assembler) TextBytes(kind ChunkKind, b []byte) error {
	if a.Sink != nil {
		return a.Text(kind, string(b))
	}
	buf := a.buffer(kind)
	*buf = append(*buf, b...)
	return nil
}

func (a *Assembler) buffer(kind ChunkKind) *[]byte {
	if kind == ChunkThinking {
		return &a.thinking
	}
	return &a.content
}

// ToolCall adds a piece of the tool call at index. id and name may be empty
// after the first piece; args pieces concatenate to the arguments.
func (a *Assembler) ToolCall(index int, id, name, args string) error {
	d, c := a.updateCall(a.call(index), index, id, name)
	c.args = append(c.args, args...)
	d.ArgumentsDelta = args
	return a.emitCall(d)
}

// ToolCallBytes is ToolCall for a parser's buffers, which may be reused.
// Strings are made only of what is kept or passed on: an id or name the
// server repeats is compared in place, and args are converted only for a
// Sink.
func (a *Assembler) ToolCallBytes(index int, id, name, args []byte) error {
	c := a.call(index)
	if c != nil {
		if string(id) == c.id {
			id = nil
		}
		if string(name) == c.name {
			name = nil
		}
	}
	d, c := a.updateCall(c, index, string(id), string(name))
	c.args = append(c.args, args...)
	if a.Sink != nil {
		d.ArgumentsDelta = string(args)
	}
	return a.emitCall(d)
}

// updateCall starts the call at index (c is nil) or updates it, and returns
// the delta that says what is new, without arguments.
func (a *Assembler) updateCall(c *callState, index int, id, name string) (ToolCallDelta, *callState) {
	d := ToolCallDelta{Index: index}
	if c == nil {
		if id == "" {
			id = GeneratedCallID(index)
		}
		a.calls = append(a.calls, callState{index: index, id: id, name: name})
		d.ID, d.Name = id, name
		return d, &a.calls[len(a.calls)-1]
	}
	// OpenAI sends id and name once; a server that repeats them is
	// believed when it says something new.
	if id != "" && id != c.id {
		c.id, d.ID = id, id
	}
	if name != "" && name != c.name {
		c.name, d.Name = name, name
	}
	return d, c
}

// emitCall passes d on unless it says nothing new.
func (a *Assembler) emitCall(d ToolCallDelta) error {
	if d.ArgumentsDelta == "" && d.ID == "" && d.Name == "" {
		return nil
	}
	return a.emit(Chunk{Kind: ChunkToolCall, ToolCall: d})
}

// SetUsage records the token accounting, replacing any earlier report
// (servers may send it twice), and passes it on.
func (a *Assembler) SetUsage(u Usage) error {
	a.usage, a.hasUsage = u, true
	return a.emit(Chunk{Kind: ChunkUsage, Usage: u})
}

func (a *Assembler) call(index int) *callState {
	for i := range a.calls {
		if a.calls[i].index == index {
			return &a.calls[i]
		}
	}
	return nil
}

func (a *Assembler) emit(c Chunk) error {
	if a.Sink == nil {
		return nil
	}
	if err := a.Sink(c); err != nil {
		return fmt.Errorf("sink: %w", err)
	}
	return nil
}

// Response builds the reply from everything added so far. It may be called
// more than once; each call returns a new Response.
func (a *Assembler) Response() *Response {
	r := &Response{
		Message: Message{
			Role:     RoleAssistant,
			Content:  string(a.content),
			Thinking: string(a.thinking),
		},
		FinishReason: a.Finish,
		ID:           a.ID,
		Model:        a.Model,
	}
	if len(a.calls) > 0 {
		sortCalls(a.calls)
		r.Message.ToolCalls = make([]ToolCall, len(a.calls))
		for i, c := range a.calls {
			r.Message.ToolCalls[i] = ToolCall{ID: c.id, Name: c.name, Arguments: string(c.args)}
		}
	}
	if a.hasUsage {
		u := a.usage
		r.Usage = &u
	}
	return r
}

// sortCalls orders calls by index; there are a handful at most, and they
// nearly always arrive in order, so insertion sort is the cheap choice.
func sortCalls(cs []callState) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].index < cs[j-1].index; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}
