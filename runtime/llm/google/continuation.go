package google

import (
	"encoding/json"

	"github.com/troupehq/troupe/runtime/llm"
)

// state is the continuation a Gemini answer leaves on its message: the
// thought signatures Gemini put on its parts, which the next request must
// carry back on the same parts (a function call's is checked, and a
// request without it is refused), and the ids Gemini gave its function
// calls. Parts are named by kind, and calls by position, because that is
// how modelParts rebuilds the turn.
type state struct {
	Thought []byte      `json:"thought,omitempty"`
	Text    []byte      `json:"text,omitempty"`
	Calls   []callState `json:"calls,omitempty"`
}

// callState is one function call's, in the order of Message.ToolCalls.
type callState struct {
	// ID is the id Gemini sent with the call; empty when it sent none (the
	// message then has a generated one, which Gemini must not see).
	ID        string `json:"id,omitempty"`
	Signature []byte `json:"signature,omitempty"`
}

func (s *state) empty() bool {
	if len(s.Thought) > 0 || len(s.Text) > 0 {
		return false
	}
	for _, c := range s.Calls {
		if c.ID != "" || len(c.Signature) > 0 {
			return false
		}
	}
	return true
}

// continuation is s as the message's, or nil when there is nothing to
// carry.
func (s *state) continuation() *llm.Continuation {
	if s.empty() {
		return nil
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil // byte slices and strings always marshal
	}
	return &llm.Continuation{Provider: API, Data: data}
}

// decodeState reads m's continuation when Gemini wrote it; nil for any
// other (another provider's, or none), and for one that does not parse: a
// turn sent without signatures is what a provider switch sends anyway.
func decodeState(m llm.Message) *state {
	data := m.Continuation.For(API)
	if len(data) == 0 {
		return nil
	}
	var s state
	if json.Unmarshal(data, &s) != nil {
		return nil
	}
	return &s
}
