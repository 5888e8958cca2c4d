package llmserver

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/troupehq/troupe/runtime/llm"
)

// assembly forwards chunks to the sink and builds the Response, following
// the rules of runtime/llm/openai's unexported assembler: empty text is
// dropped, a tool call's first chunk carries its id (call_<index> when the
// server sent none) and name, later ones only non-empty argument pieces.
// The equivalence tests hold the two together.
type assembly struct {
	sink     func(llm.Chunk) error
	content  []byte
	thinking []byte
	calls    []callState
	finish   llm.FinishReason
	usage    *llm.Usage
	id       string
	model    string
}

type callState struct {
	index int
	id    string
	name  string
	args  []byte
}

func (a *assembly) emit(c llm.Chunk) error {
	if a.sink == nil {
		return nil
	}
	return a.sink(c)
}

func (a *assembly) text(kind llm.ChunkKind, s string) error {
	if s == "" {
		return nil
	}
	if kind == llm.ChunkThinking {
		a.thinking = append(a.thinking, s...)
	} else {
		a.content = append(a.content, s...)
	}
	return a.emit(llm.Chunk{Kind: kind, Text: s})
}

func (a *assembly) toolCall(index int, id, name, args string) error {
	d := llm.ToolCallDelta{Index: index}
	c := a.call(index)
	if c == nil {
		if id == "" {
			id = "call_" + strconv.Itoa(index)
		}
		a.calls = append(a.calls, callState{index: index, id: id, name: name})
		c = &a.calls[len(a.calls)-1]
		d.ID, d.Name = id, name
	} else {
		if id != "" && id != c.id {
			c.id, d.ID = id, id
		}
		if name != "" && name != c.name {
			c.name, d.Name = name, name
		}
	}
	c.args = append(c.args, args...)
	d.ArgumentsDelta = args
	if args == "" && d.ID == "" && d.Name == "" {
		return nil
	}
	return a.emit(llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: d})
}

func (a *assembly) call(index int) *callState {
	for i := range a.calls {
		if a.calls[i].index == index {
			return &a.calls[i]
		}
	}
	return nil
}

func (a *assembly) setUsage(u llm.Usage) error {
	a.usage = &u
	return a.emit(llm.Chunk{Kind: llm.ChunkUsage, Usage: u})
}

func (a *assembly) response() *llm.Response {
	r := &llm.Response{
		Message: llm.Message{
			Role:     llm.RoleAssistant,
			Content:  string(a.content),
			Thinking: string(a.thinking),
		},
		FinishReason: a.finish,
		Usage:        a.usage,
		ID:           a.id,
		Model:        a.model,
	}
	if len(a.calls) > 0 {
		slices.SortStableFunc(a.calls, func(x, y callState) int { return x.index - y.index })
		r.Message.ToolCalls = make([]llm.ToolCall, len(a.calls))
		for i, c := range a.calls {
			r.Message.ToolCalls[i] = llm.ToolCall{ID: c.id, Name: c.name, Arguments: string(c.args)}
		}
	}
	return r
}

func sinkError(err error) error { return fmt.Errorf("sink: %w", err) }
