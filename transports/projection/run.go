package projection

import (
	"slices"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/tooltext"
)

// Run is one run under way: everything done for one prompt.
type Run struct {
	ID string
	// Steps counts the steps this View saw start; Step is the latest.
	Steps int
	Step  *Step
	// Calls are the run's tool calls in the order they were first named.
	Calls []*ToolCall
	// Retries counts the retries begun (retry.started); RetryError is the
	// error the last one retried.
	Retries    int
	RetryError string
	// Interrupted is set once recovery reported the run cut by a crash.
	Interrupted *event.RunInterruptedPayload
	// Usage adds up the usage of its ended steps.
	Usage event.Usage
	// Ended is set by run.ended, on the run the Change carries.
	Ended *event.RunEndedPayload
}

// Call returns the run's tool call id, nil if none was named.
func (r *Run) Call(id string) *ToolCall {
	for _, c := range r.Calls {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// call returns the call id, adding it when new.
func (r *Run) call(id string) *ToolCall {
	if c := r.Call(id); c != nil {
		return c
	}
	c := &ToolCall{ID: id}
	r.Calls = append(r.Calls, c)
	return c
}

// Step is one LLM call of a run.
type Step struct {
	N           int
	MessageID   string // the assistant message it produces
	Instruction string // a user message the runtime added before the call
	// Blocks is the message as it streamed while deltas were folded: a
	// block per channel (and per tool call), in order.
	Blocks []*Block
	open   bool // the last block still streams
	// Attempt is the stream's attempt, from 1: a retry (retry.started)
	// abandons what the attempt streamed and starts the next.
	Attempt int
	// Message is the completed message, nil until message.completed.
	Message *event.MessageCompletedPayload
	// Ended is set by step.ended: its finish reason and usage.
	Ended        bool
	FinishReason string
	Usage        event.Usage
}

// Block is one content block of a streaming message.
type Block struct {
	Channel    string // event.ChannelText, ChannelThinking or ChannelToolCallArgs
	ToolCallID string
	ToolName   string
	Text       []byte // the text (a tool call's raw arguments) so far
}

// MessageCall returns the tool call id as the step's completed message
// asked for it: the name and arguments the model wrote.
func (s *Step) MessageCall(id string) (event.ToolCall, bool) {
	if s == nil || s.Message == nil {
		return event.ToolCall{}, false
	}
	for _, c := range MessageCalls(s.Message) {
		if c.ID == id {
			return c, true
		}
	}
	return event.ToolCall{}, false
}

// MessageCalls is every call a completed message asks for, as the run
// runs them: its native calls, then those written as text blocks (tool
// style text: parsed again from Raw, which gives what the run's streaming
// parse gave), then the text blocks that held no call, each an empty call
// the run answers as failed. Clients see them all alike.
func MessageCalls(p *event.MessageCompletedPayload) []event.ToolCall {
	if p.Raw == "" {
		return p.ToolCalls
	}
	parsed := tooltext.Parse(p.Raw)
	if len(parsed.Calls) == 0 && len(parsed.Errors) == 0 {
		return p.ToolCalls
	}
	calls := slices.Clip(p.ToolCalls)
	for i, c := range parsed.Calls {
		calls = append(calls, event.ToolCall{ID: event.TextToolCallID(p.MessageID, i), Name: c.Name, Arguments: c.Arguments})
	}
	for i, e := range parsed.Errors {
		calls = append(calls, event.ToolCall{ID: event.MalformedToolCallID(p.MessageID, i), Name: e.Name, Arguments: "{}"})
	}
	return calls
}

// extend appends a delta to the open block, or opens a block when the
// channel (or the tool call) changes. Deltas of unknown channels are
// skipped.
func (s *Step) extend(d *event.MessageDeltaPayload) (*Block, bool) {
	switch d.Channel {
	case event.ChannelText, event.ChannelThinking, event.ChannelToolCallArgs:
	default:
		return nil, false
	}
	var b *Block
	if s.open && len(s.Blocks) > 0 {
		b = s.Blocks[len(s.Blocks)-1]
	}
	opened := false
	if b == nil || b.Channel != d.Channel || (d.Channel == event.ChannelToolCallArgs && d.ToolCallID != "" && d.ToolCallID != b.ToolCallID) {
		b = &Block{Channel: d.Channel, ToolCallID: d.ToolCallID, ToolName: d.ToolName}
		s.Blocks = append(s.Blocks, b)
		s.open, opened = true, true
	}
	b.Text = append(b.Text, d.Text...)
	return b, opened
}

// foldRun folds the events that belong to a run's steps and calls.
func (v *View) foldRun(ch *Change, kind event.Kind, p any) {
	switch p := p.(type) {
	case *event.RunInterruptedPayload:
		v.open(ch, p.RunID)
		ch.Run.Interrupted = p
	case *event.StepStartedPayload:
		v.open(ch, p.RunID)
		r := ch.Run
		r.Steps++
		r.Step = &Step{N: p.Step, MessageID: p.MessageID, Instruction: p.Instruction, Attempt: 1}
		ch.Step = r.Step
	case *event.MessageCompletedPayload:
		v.open(ch, p.RunID)
		st := ch.Run.Step
		if st != nil && st.MessageID == p.MessageID {
			st.Message, st.open = p, false
			ch.Step = st
		}
		for _, c := range MessageCalls(p) {
			if tc := ch.Run.call(c.ID); !tc.Started {
				tc.Name, tc.Arguments = c.Name, c.Arguments
			}
		}
	case *event.StepEndedPayload:
		v.open(ch, p.RunID)
		ch.Run.Usage.Add(p.Usage)
		if st := ch.Run.Step; st != nil && st.MessageID == p.MessageID {
			st.Ended, st.FinishReason, st.Usage = true, p.FinishReason, p.Usage
			ch.Step = st
		}
	case *event.RetryPayload:
		v.open(ch, p.RunID)
		if kind == event.RetryStarted {
			ch.Run.Retries++
			ch.Run.RetryError = p.Error
			if st := ch.Run.Step; st != nil && st.Message == nil && !st.Ended {
				// The attempt is abandoned: the next streams the step's
				// message afresh, under the same message id.
				ch.Step, ch.Abandoned = st, st.Blocks
				st.Blocks, st.open = nil, false
				st.Attempt++
			}
		}
	case *event.ToolProcessPayload:
		// Not a sign of a run by itself: it only lets recovery kill a group.
		if r := v.RunByID(p.RunID); r != nil {
			ch.Run, ch.Call = r, r.Call(p.ToolCallID)
		}
	default:
		v.foldCall(ch, kind, p)
	}
}
