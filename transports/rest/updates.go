package rest

import (
	"github.com/troupehq/troupe/persistence/event"
)

// update is one ACP session/update a canonical event projects to: its
// sessionUpdate kind, the message it belongs to, and the update object.
type update struct {
	kind      string
	messageID string
	body      map[string]any
}

// projector turns a session's events, read in order, into the
// session/update objects a client attached from the start would have seen
// (see the event projections in ARCHITECTURE.md), agent updates as the
// session's response chain decided (decisions, by session: a fork's
// inherited events are its ancestors'). It keeps what later events need:
// prompts' content until their run starts, the usage total.
type projector struct {
	prompts   map[string][]event.Block
	usage     event.Usage
	decisions *decisions
}

func newProjector(d *decisions) *projector {
	if d == nil {
		d = newDecisions()
	}
	return &projector{prompts: map[string][]event.Block{}, decisions: d}
}

func upd(kind, messageID string, fields map[string]any) update {
	fields["sessionUpdate"] = kind
	if messageID != "" {
		fields["messageId"] = messageID
	}
	return update{kind: kind, messageID: messageID, body: fields}
}

// project returns e's updates; nil for kinds no client is shown. A payload
// that does not decode is a corrupt log: it is shown as nothing rather than
// ending the read.
func (p *projector) project(e event.Event) []update {
	if p.decisions.held(e) {
		return nil
	}
	if d, ok := p.decisions.of(e); ok {
		return decided(d, p.canonical(e))
	}
	return p.canonical(e)
}

// canonical returns e's updates as recorded.
func (p *projector) canonical(e event.Event) []update {
	if e.Kind == event.UpdateTransformed {
		// Met while following: it decides an event written already (a
		// snapshot read them all first), so it counts from the next read on.
		p.decisions.fold(e)
		return nil
	}
	pl, err := event.DecodePayload(e.Kind, e.Payload)
	if err != nil {
		return nil
	}
	switch v := pl.(type) {
	case *event.CreatedPayload:
		if v.Title != "" {
			return []update{upd("session_info_update", "", map[string]any{"title": v.Title})}
		}
	case *event.Settings:
		return p.settings(v)
	case *event.PromptQueuedPayload:
		p.prompts[v.MessageID] = v.Content
	case *event.RunStartedPayload:
		content := p.prompts[v.RunID]
		delete(p.prompts, v.RunID)
		out := make([]update, 0, len(content)+1)
		for _, b := range content {
			out = append(out, upd("user_message_chunk", v.RunID, map[string]any{"content": block(b)}))
		}
		return append(out, upd("prompt_received", v.RunID, map[string]any{"prompt": blocks(content)}))
	case *event.MessageDeltaPayload:
		return p.delta(v)
	case *event.HistoryImportedPayload:
		return imported(v)
	case *event.ToolStartedPayload:
		status := "in_progress"
		if v.AwaitingApproval {
			status = "pending"
		}
		return []update{upd("tool_call", v.MessageID, map[string]any{
			"toolCallId": v.ToolCallID, "title": toolTitle(v.Name, v.Description), "kind": toolKind(v.Category),
			"status": status, "rawInput": rawArgs(v.Arguments),
		})}
	case *event.ToolProgressPayload:
		return []update{upd("tool_call_update", "", map[string]any{
			"toolCallId": v.ToolCallID, "content": textContent(v.Output),
		})}
	case *event.ToolCompletedPayload:
		status := "completed"
		if v.Status != "success" {
			status = "failed"
		}
		return []update{upd("tool_call_update", "", map[string]any{
			"toolCallId": v.ToolCallID, "status": status, "content": textContent(v.Output),
			"rawOutput": map[string]any{"status": v.Status, "output": v.Output, "durationMs": v.DurationMS},
		})}
	case *event.PermissionResolvedPayload:
		return []update{upd("permission_resolved", "", map[string]any{
			"toolCallId": v.ToolCallID, "outcome": v.Outcome, "optionId": v.OptionID, "resolvedBy": v.ResolvedBy,
		})}
	case *event.StepEndedPayload:
		p.usage.Add(v.Usage)
		return []update{upd("usage_update", "", map[string]any{
			"tokenUsage": map[string]int64{"prompt": p.usage.Input, "completion": p.usage.Output,
				"cacheRead": p.usage.CacheRead, "cacheWrite": p.usage.CacheWrite},
			"cost": map[string]any{"amount": p.usage.Cost, "currency": "USD"},
		})}
	case *event.RunEndedPayload:
		return []update{upd("turn_complete", v.RunID, map[string]any{"stopReason": stopReason(v.StopReason)})}
	}
	return nil
}

func (p *projector) settings(v *event.Settings) []update {
	var out []update
	if v.Title != nil {
		out = append(out, upd("session_info_update", "", map[string]any{"title": *v.Title}))
	}
	if v.ApprovalMode != nil {
		out = append(out, upd("current_mode_update", "", map[string]any{"currentModeId": *v.ApprovalMode}))
	}
	return out
}

func (p *projector) delta(v *event.MessageDeltaPayload) []update {
	switch v.Channel {
	case event.ChannelText:
		return []update{upd("agent_message_chunk", v.MessageID, map[string]any{"content": textBlock(v.Text)})}
	case event.ChannelThinking:
		return []update{upd("agent_thought_chunk", v.MessageID, map[string]any{"content": textBlock(v.Text)})}
	}
	// Tool-call arguments stream into tool_call once the call starts.
	return nil
}

// stopReason maps the canonical stop reasons to ACP's; error has none.
func stopReason(r string) string {
	if r == "error" {
		return "end_turn"
	}
	return r
}

// imported shows a conversation brought in (history.imported) as the
// chunks a client would have seen of it.
func imported(v *event.HistoryImportedPayload) []update {
	var out []update
	for _, m := range v.Messages {
		switch m.Role {
		case "user":
			out = append(out, upd("user_message_chunk", "", map[string]any{"content": textBlock(m.Content)}))
		case "assistant":
			out = append(out, upd("agent_message_chunk", "", map[string]any{"content": textBlock(m.Content)}))
		}
	}
	return out
}
