package jsonstream

import (
	"fmt"
	"time"

	"github.com/troupehq/troupe/persistence/event"
)

// Projector turns canonical events into protocol events. It is pure (no
// I/O, no actors), so the projection is table-tested and the same live and
// on replay.
type Projector struct {
	mode   string
	open   map[string]*runView // runs with stream_start written and no stream_end
	denied map[string]bool     // calls whose tool_cancelled was written at the decision
	names  map[string]string   // tool name by call id, for tool_running after approval
}

// runView is what a response's projection remembers while it streams.
type runView struct {
	stepped bool   // an LLM call began: a failure after it is the provider's
	retried bool   // a transient error was retried: a final one is retryable
	lastErr string // the last retried error
}

// NewProjector starts a projection for a session in mode.
func NewProjector(mode string) *Projector {
	return &Projector{mode: mode, open: map[string]*runView{}, denied: map[string]bool{}, names: map[string]string{}}
}

// Mode is the approval mode as of the last projected event.
func (p *Projector) Mode() string { return p.mode }

// Open reports whether any response is streaming.
func (p *Projector) Open() bool { return len(p.open) > 0 }

// IsOpen reports whether run id's response is streaming.
func (p *Projector) IsOpen(id string) bool { return p.open[id] != nil }

// Project returns the protocol events for e, in order (often none).
func (p *Projector) Project(e event.Event) []any {
	if e.Kind == event.SessionSettingsChanged {
		var s event.Settings
		if e.Decode(&s) != nil || s.ApprovalMode == nil || *s.ApprovalMode == p.mode {
			return nil
		}
		p.mode = *s.ApprovalMode
		return []any{ConfigChanged{Type: "config_changed", Capabilities: NewCapabilities(p.mode)}}
	}
	v, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return nil // the session validated it; an unknown kind is for newer readers
	}
	var out []any
	// A run seen first in the middle (resumed after a crash) gets its
	// stream_start before anything of it.
	if id := runID(v); id != "" && p.open[id] == nil {
		p.open[id] = &runView{}
		out = append(out, StreamStart{Type: "stream_start", MsgID: id})
		if e.Kind == event.RunStarted {
			return out
		}
	}
	return append(out, p.project(e, v)...)
}

func (p *Projector) project(e event.Event, v any) []any {
	switch m := v.(type) {
	case *event.MessageDeltaPayload:
		switch m.Channel {
		case event.ChannelText:
			return one(Delta{Type: "text_delta", Text: m.Text, MsgID: m.RunID})
		case event.ChannelThinking:
			return one(Delta{Type: "thinking", Text: m.Text, MsgID: m.RunID})
		}
	case *event.StepStartedPayload:
		p.open[m.RunID].stepped = true
	case *event.ToolStartedPayload:
		if m.AwaitingApproval {
			p.names[m.ToolCallID] = m.Name
		} else {
			return one(ToolRunning{Type: "tool_running", MsgID: m.RunID, CallID: m.ToolCallID, ToolName: m.Name})
		}
	case *event.PermissionRequestedPayload:
		args := toolArgs(m.Arguments)
		return one(ToolRequest{Type: "tool_request", MsgID: m.RunID, CallID: m.ToolCallID,
			Tool: ToolInfo{Name: m.Name, Category: m.Category, Args: args, Description: describe(m.Name, args)}})
	case *event.PermissionResolvedPayload:
		return p.resolved(m)
	case *event.ToolCompletedPayload:
		return p.completed(m)
	case *event.RetryPayload:
		if e.Kind == event.RetryStarted {
			r := p.open[m.RunID]
			r.retried, r.lastErr = true, m.Error
			delay := time.Duration(m.DelayMS) * time.Millisecond
			return one(NewInfo(m.RunID, fmt.Sprintf("provider error: %s; retrying in %s (%d/%d)", m.Error, delay, m.Attempt, m.MaxAttempts-1)))
		}
	case *event.CompactionPayload:
		return p.compaction(e.Kind, m)
	case *event.RunInterruptedPayload:
		msg := "troupe restarted during this response; continuing it"
		if m.Policy == "stop" {
			msg = "troupe restarted during this response; it was stopped"
		}
		if n := len(m.ToolCallIDs); n > 0 {
			msg += fmt.Sprintf(" (%d tool call(s) were interrupted and not run again)", n)
		}
		return one(NewInfo(m.RunID, msg))
	case *event.RunEndedPayload:
		return p.ended(m)
	}
	return nil
}

func (p *Projector) resolved(m *event.PermissionResolvedPayload) []any {
	switch m.Outcome {
	case "allowed":
		name := p.names[m.ToolCallID]
		delete(p.names, m.ToolCallID)
		return one(ToolRunning{Type: "tool_running", MsgID: m.RunID, CallID: m.ToolCallID, ToolName: name})
	case "denied":
		reason := m.Reason
		if reason == "" {
			reason = "User denied"
		}
		p.denied[m.ToolCallID] = true
		delete(p.names, m.ToolCallID)
		return one(ToolCancelled{Type: "tool_cancelled", MsgID: m.RunID, CallID: m.ToolCallID, Reason: reason})
	default:
		reason := "Cancelled"
		if m.Reason != "" {
			reason += ": " + m.Reason
		}
		p.denied[m.ToolCallID] = true
		delete(p.names, m.ToolCallID)
		return one(ToolCancelled{Type: "tool_cancelled", MsgID: m.RunID, CallID: m.ToolCallID, Reason: reason})
	}
}

func (p *Projector) completed(m *event.ToolCompletedPayload) []any {
	if p.denied[m.ToolCallID] {
		delete(p.denied, m.ToolCallID) // its tool_cancelled said it all
		return nil
	}
	switch m.Status {
	case "success", "error":
		typ := m.OutputType
		if typ == "" {
			typ = "text"
		}
		return one(ToolResult{Type: "tool_result", MsgID: m.RunID, CallID: m.ToolCallID, ToolName: m.Name,
			Status: m.Status, Output: m.Output, OutputType: typ, Metadata: m.Metadata})
	default: // cancelled, skipped, interrupted
		return one(ToolCancelled{Type: "tool_cancelled", MsgID: m.RunID, CallID: m.ToolCallID, Reason: m.Output})
	}
}

func (p *Projector) compaction(kind event.Kind, m *event.CompactionPayload) []any {
	id := p.current()
	switch {
	case kind == event.CompactionStarted:
		return one(NewInfo(id, "compacting the conversation ("+m.Reason+")"))
	case m.Error != "":
		return one(NewInfo(id, "compaction failed: "+m.Error))
	case m.Aborted:
		return one(NewInfo(id, "compaction aborted"))
	}
	return one(NewInfo(id, "conversation compacted"))
}

// current is the one streaming response, if exactly one streams.
func (p *Projector) current() string {
	if len(p.open) != 1 {
		return ""
	}
	for id := range p.open {
		return id
	}
	return ""
}

func (p *Projector) ended(m *event.RunEndedPayload) []any {
	r := p.open[m.RunID]
	delete(p.open, m.RunID)
	var out []any
	switch m.StopReason {
	case "error":
		out = append(out, NewError(m.RunID, errorCode(r, m), m.Error, retryable(r, m)))
	case "max_tokens":
		out = append(out, NewInfo(m.RunID, "the reply was cut at the token limit (--max-tokens or the model's)"))
	case "max_turn_requests":
		out = append(out, NewInfo(m.RunID, "stopped after reaching the turn budget (--max-turns)"))
	case "refusal":
		out = append(out, NewInfo(m.RunID, "the model refused to answer (content filter)"))
	}
	u := m.Usage
	return append(out, StreamEnd{Type: "stream_end", MsgID: m.RunID, Usage: Usage{
		InputTokens: u.Input, OutputTokens: u.Output, CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheWrite,
	}})
}

// errorCode classifies a failed run by the kind run.ended records; logs
// written before that field existed fall back to how far the run got (a
// run that never reached its first LLM call failed to resolve its model).
func errorCode(r *runView, m *event.RunEndedPayload) string {
	switch m.ErrorKind {
	case "provider":
		return CodeProvider
	case "config":
		return CodeConfig
	case "":
		if r != nil && r.stepped {
			return CodeProvider
		}
		return CodeConfig
	}
	return CodeInternal
}

// retryable is what run.ended says, or for older logs whether the engine
// retried the same error as transient and gave up.
func retryable(r *runView, m *event.RunEndedPayload) bool {
	return m.Retryable || (r != nil && r.retried && m.Error == r.lastErr)
}

func one(v any) []any { return []any{v} }

// runID is the run an event belongs to, "" for session-level events.
func runID(v any) string {
	switch m := v.(type) {
	case *event.RunStartedPayload:
		return m.RunID
	case *event.RunEndedPayload:
		return m.RunID
	case *event.RunInterruptedPayload:
		return m.RunID
	case *event.StepStartedPayload:
		return m.RunID
	case *event.StepEndedPayload:
		return m.RunID
	case *event.MessageDeltaPayload:
		return m.RunID
	case *event.MessageCompletedPayload:
		return m.RunID
	case *event.ToolStartedPayload:
		return m.RunID
	case *event.PermissionRequestedPayload:
		return m.RunID
	case *event.PermissionResolvedPayload:
		return m.RunID
	case *event.ToolProgressPayload:
		return m.RunID
	case *event.ToolCompletedPayload:
		return m.RunID
	case *event.RetryPayload:
		return m.RunID
	}
	return ""
}
