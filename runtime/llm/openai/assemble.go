package openai

import (
	"strconv"

	"github.com/troupehq/troupe/runtime/llm"
)

// assembler forwards deltas to the sink and keeps the running totals that
// become the Response. Text is appended to byte slices rather than
// concatenated as strings so a long reply costs amortised O(n).
type assembler struct {
	sink     func(llm.Chunk) error
	content  []byte
	thinking []byte
	calls    []callState
	finish   llm.FinishReason
	usage    llm.Usage
	hasUsage bool
	id       string
	model    string
}

type callState struct {
	index int
	id    string
	name  string
	args  []byte
}

// generatedID is the id given to a call the server sent without one (old
// llama-server sends ""). It depends only on the index so that replaying
// the same reply gives the same id.
func generatedID(index int) string { return "call_" + strconv.Itoa(index) }

func (a *assembler) emit(c llm.Chunk) error {
	if a.sink == nil {
		return nil
	}
	return a.sink(c)
}

func (a *assembler) text(kind llm.ChunkKind, b []byte) error {
	if kind == llm.ChunkThinking {
		a.thinking = append(a.thinking, b...)
	} else {
		a.content = append(a.content, b...)
	}
	if a.sink == nil {
		return nil
	}
	return a.sink(llm.Chunk{Kind: kind, Text: string(b)})
}

func (a *assembler) toolCall(index int, id, name, args []byte) error {
	d := llm.ToolCallDelta{Index: index}
	c := a.call(index)
	if c == nil {
		a.calls = append(a.calls, callState{index: index})
		c = &a.calls[len(a.calls)-1]
		c.id = string(id)
		if c.id == "" {
			c.id = generatedID(index)
		}
		c.name = string(name)
		d.ID, d.Name = c.id, c.name
	} else {
		// OpenAI sends id and name once; a server that repeats them is
		// believed when it says something new.
		if len(id) > 0 && string(id) != c.id {
			c.id = string(id)
			d.ID = c.id
		}
		if len(name) > 0 && string(name) != c.name {
			c.name = string(name)
			d.Name = c.name
		}
	}
	c.args = append(c.args, args...)
	if a.sink == nil {
		return nil
	}
	if len(args) > 0 {
		d.ArgumentsDelta = string(args)
	} else if d.ID == "" && d.Name == "" {
		return nil
	}
	return a.sink(llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: d})
}

func (a *assembler) call(index int) *callState {
	for i := range a.calls {
		if a.calls[i].index == index {
			return &a.calls[i]
		}
	}
	return nil
}

func (a *assembler) setUsage(u llm.Usage) error {
	a.usage, a.hasUsage = u, true
	return a.emit(llm.Chunk{Kind: llm.ChunkUsage, Usage: u})
}

func (a *assembler) response() *llm.Response {
	r := &llm.Response{
		Message: llm.Message{
			Role:     llm.RoleAssistant,
			Content:  string(a.content),
			Thinking: string(a.thinking),
		},
		FinishReason: a.finish,
		ID:           a.id,
		Model:        a.model,
	}
	if len(a.calls) > 0 {
		sortCalls(a.calls)
		r.Message.ToolCalls = make([]llm.ToolCall, len(a.calls))
		for i, c := range a.calls {
			r.Message.ToolCalls[i] = llm.ToolCall{ID: c.id, Name: c.name, Arguments: string(c.args)}
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
