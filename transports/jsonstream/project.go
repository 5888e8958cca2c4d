package jsonstream

import (
	"cmp"
	"fmt"
	"time"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/projection"
)

// Projector turns canonical events into protocol events: the projection
// kit folds each event into its view, and the projector writes what the
// change means in this protocol. It is pure (no I/O, no actors), so the
// projection is table-tested and the same live and on replay.
type Projector struct {
	view projection.View
	mode string
}

// NewProjector starts a projection for a session in mode.
func NewProjector(mode string) *Projector {
	return &Projector{view: projection.View{Deltas: true}, mode: mode}
}

// Mode is the approval mode as of the last projected event.
func (p *Projector) Mode() string { return p.mode }

// Open reports whether any response is streaming.
func (p *Projector) Open() bool { return len(p.view.Runs) > 0 }

// IsOpen reports whether run id's response is streaming.
func (p *Projector) IsOpen(id string) bool { return p.view.RunByID(id) != nil }

// Project returns the protocol events for e, in order (often none).
func (p *Projector) Project(e event.Event) []any {
	ch := p.view.Apply(e)
	if s, ok := ch.Payload.(*event.Settings); ok {
		if s.ApprovalMode == nil || *s.ApprovalMode == p.mode {
			return nil
		}
		p.mode = *s.ApprovalMode
		return one(ConfigChanged{Type: "config_changed", Capabilities: NewCapabilities(p.mode)})
	}
	var out []any
	// A run seen first in the middle (resumed after a crash) gets its
	// stream_start before anything of it.
	if ch.RunOpened {
		out = append(out, StreamStart{Type: "stream_start", MsgID: ch.Run.ID})
		if e.Kind == event.RunStarted {
			return out
		}
	}
	return append(out, p.project(ch)...)
}

func (p *Projector) project(ch projection.Change) []any {
	if d := ch.Delta; d != nil {
		switch d.Channel {
		case event.ChannelText:
			return one(Delta{Type: "text_delta", Text: d.Text, MsgID: d.RunID})
		case event.ChannelThinking:
			return one(Delta{Type: "thinking", Text: d.Text, MsgID: d.RunID})
		}
		return nil
	}
	switch m := ch.Payload.(type) {
	case *event.ToolStartedPayload:
		if !m.AwaitingApproval {
			return one(ToolRunning{Type: "tool_running", MsgID: m.RunID, CallID: m.ToolCallID, ToolName: toolName(m.Name)})
		}
	case *event.PermissionRequestedPayload:
		args := toolArgs(m.Arguments)
		return one(ToolRequest{Type: "tool_request", MsgID: m.RunID, CallID: m.ToolCallID,
			Tool: ToolInfo{Name: toolName(m.Name), Category: m.Category, Args: args, Description: describe(m.Name, args)}})
	case *event.PermissionResolvedPayload:
		return resolved(ch.Call, m)
	case *event.ToolCompletedPayload:
		return completed(ch.Call, m)
	case *event.RetryPayload:
		if ch.Event.Kind == event.RetryStarted {
			delay := time.Duration(m.DelayMS) * time.Millisecond
			return one(NewInfo(m.RunID, fmt.Sprintf("provider error: %s; retrying in %s (%d/%d)", m.Error, delay, m.Attempt, m.MaxAttempts-1)))
		}
	case *event.CompactionPayload:
		return p.compaction(ch.Event.Kind, m)
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
		return ended(ch.Run, m)
	case *event.MCPStatusPayload:
		return one(NewInfo("", mcpStatus(m)))
	}
	return nil
}

// mcpStatus says a change of an MCP server's state for display: aionrs
// has no event of its own for it, and info is its display-only message.
func mcpStatus(m *event.MCPStatusPayload) string {
	why := ""
	if m.Error != "" {
		why = " (" + m.Error + ")"
	}
	switch m.Status {
	case event.MCPStatusUnavailable:
		return "MCP server " + m.Server + " is unavailable" + why + "; retrying in the background"
	case event.MCPStatusLost:
		return "MCP server " + m.Server + " was lost" + why + "; restarting it"
	case event.MCPStatusConnected:
		return fmt.Sprintf("MCP server %s is connected (%d tools)", m.Server, m.Tools)
	}
	return "MCP server " + m.Server + " is " + m.Status + why
}

func resolved(c *projection.ToolCall, m *event.PermissionResolvedPayload) []any {
	switch m.Outcome {
	case "allowed":
		return one(ToolRunning{Type: "tool_running", MsgID: m.RunID, CallID: m.ToolCallID, ToolName: toolName(c.Name)})
	case "denied":
		reason := cmp.Or(m.Reason, "User denied")
		return one(ToolCancelled{Type: "tool_cancelled", MsgID: m.RunID, CallID: m.ToolCallID, Reason: reason})
	default:
		reason := "Cancelled"
		if m.Reason != "" {
			reason += ": " + m.Reason
		}
		return one(ToolCancelled{Type: "tool_cancelled", MsgID: m.RunID, CallID: m.ToolCallID, Reason: reason})
	}
}

func completed(c *projection.ToolCall, m *event.ToolCompletedPayload) []any {
	if pm := c.Permission; pm != nil && pm.Resolved && !pm.Allowed() {
		return nil // the tool_cancelled written at the decision said it all
	}
	switch m.Status {
	case "success", "error":
		typ := cmp.Or(m.OutputType, "text")
		res := ToolResult{Type: "tool_result", MsgID: m.RunID, CallID: m.ToolCallID, ToolName: toolName(m.Name),
			Status: m.Status, Output: m.Output, OutputType: typ, Metadata: m.Metadata}
		if m.Status != "error" || !builtin(m.Name) {
			return one(res)
		}
		// A built-in tool that failed is also the spec's tool_error; the
		// model sees the failure and goes on, so it is not retryable.
		return []any{res, NewError(m.RunID, CodeTool, toolName(m.Name)+": "+oneLine(m.Output), false)}
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
	if len(p.view.Runs) != 1 {
		return ""
	}
	return p.view.Runs[0].ID
}

func ended(r *projection.Run, m *event.RunEndedPayload) []any {
	var out []any
	switch m.StopReason {
	case event.StopError:
		out = append(out, NewError(m.RunID, errorCode(r, m), m.Error, retryable(r, m)))
	case event.StopMaxTokens:
		out = append(out, NewInfo(m.RunID, "the reply was cut at the token limit (--max-tokens or the model's)"))
	case event.StopMaxTurnRequests:
		out = append(out, NewInfo(m.RunID, "stopped after reaching the turn budget (--max-turns)"))
	case event.StopRefusal:
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
func errorCode(r *projection.Run, m *event.RunEndedPayload) string {
	switch m.ErrorKind {
	case event.ErrorKindProvider:
		return CodeProvider
	case event.ErrorKindConfig:
		return CodeConfig
	case "":
		if r != nil && r.Steps > 0 {
			return CodeProvider
		}
		return CodeConfig
	}
	return CodeInternal
}

// retryable is what run.ended says, or for older logs whether the engine
// retried the same error as transient and gave up.
func retryable(r *projection.Run, m *event.RunEndedPayload) bool {
	return m.Retryable || (r != nil && r.Retries > 0 && m.Error == r.RetryError)
}

func one(v any) []any { return []any{v} }
