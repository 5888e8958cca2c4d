package acp

import (
	"encoding/json"
	"github.com/troupehq/troupe/transports/jsonrpc"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/overrides"
	"github.com/troupehq/troupe/transports/projection"
)

// project folds one event into the attachment's view and shows it: as
// session/update (kept for the replay while history is replayed) and, live
// only, the hydra notifications, the prompt's answer, permission requests.
func (a *attachment) project(c *conn, ctx actor.Context, e event.Event) {
	live := a.replay == nil
	d, decided := a.decision(c, e)
	if live && e.Kind == event.MessageDelta && !decided {
		if b := a.frames.get(e.Seq); b != nil {
			// Another connection built this chunk's frame: it is sent as
			// is, and the delta need not be decoded (nothing here reads
			// the view's streamed text).
			a.view.Deltas = false
			a.view.Apply(e)
			a.view.Deltas = true
			c.sendRaw(b)
			return
		}
	}
	ch := a.view.Apply(e)
	emit := func(u any) {
		p := &updateParams{SessionID: a.id, Update: u, Meta: &updateMeta{Hydra: stamp{MessageID: anchorID(e.Seq), RecordedAt: e.RecordedAt.UnixMilli()}}}
		if live {
			c.notify(ctx, "session/update", p)
		} else {
			a.replay.add(e, p)
		}
	}
	// agent shows the event's agent update as the response chain decided.
	agent := emit
	if decided {
		agent = func(any) {
			if !d.Dropped {
				emit(shown(d))
			}
		}
	}
	switch p := ch.Payload.(type) {
	case nil:
		if dp := ch.Delta; dp != nil {
			if (dp.Channel == event.ChannelText || dp.Channel == event.ChannelThinking) && !decided {
				if live {
					c.sendRaw(a.chunkFrame(dp, e))
					return
				}
				if a.replay.streaming {
					a.replay.addChunk(e, chunkKind(dp.Channel), dp)
					return
				}
			}
			a.delta(dp, agent)
		}
	case *event.MessageCompletedPayload:
		if !live {
			a.replay.anchor(p.MessageID, e.Seq)
		}
	case *event.PromptQueuedPayload:
		if !live {
			a.replay.anchor(p.MessageID, e.Seq)
			return
		}
		a.queued(c, ctx, p, e)
	case *event.PromptChangedPayload:
		if live {
			a.promptChanged(c, ctx, e, p)
		}
	case *event.RunStartedPayload:
		a.runStarted(c, ctx, ch, p, live, emit)
	case *event.PromptDeliveredPayload:
		if !live && ch.Delivered != nil {
			userChunks(ch.Delivered, emit)
		}
	case *event.ToolStartedPayload, *event.ToolProgressPayload, *event.ToolCompletedPayload:
		a.toolUpdate(ch.Call, agent)
	case *event.UpdateTransformedPayload:
		if a.overrides == nil {
			a.overrides = overrides.Map{}
		}
		overrides.FromPayload(p, func(s int64, d decision) { a.overrides[s] = d })
	case *event.PermissionRequestedPayload:
		// The call shows as pending since tool.started; the request goes
		// to the client itself.
		a.raised[p.ToolCallID] = e.RecordedAt.UnixMilli()
		if live {
			a.askPermission(c, ctx, ch.Call)
			a.attention(c, ctx)
		}
	case *event.PermissionResolvedPayload:
		a.toolUpdate(ch.Call, emit)
		a.resolved(c, ctx, p, live, emit)
	case *event.StepEndedPayload:
		emit(c.usage(a.view, p))
	case *event.RunEndedPayload:
		a.turnEnds[p.RunID], a.lastTurn = e.Seq, p.RunID
		a.runEnded(c, ctx, p, live, emit)
	case *event.Settings:
		a.settings(c, p, emit)
	case *event.CompactionPayload:
		emit(compaction(e, p))
	case *event.AttentionPayload:
		if e.SessionID == a.id {
			a.flags = p.Apply(a.flags, e.RecordedAt.UnixMilli())
			if live {
				a.attention(c, ctx)
			}
		}
	}
}

// chunkFrame is a live text or thinking delta's session/update, built by
// hand and offered to the session's other connections.
func (a *attachment) chunkFrame(d *event.MessageDeltaPayload, e event.Event) []byte {
	b := appendChunkFrame(make([]byte, 0, 192+len(d.Text)), a.id, chunkKind(d.Channel), d.Text, d.MessageID, e.Seq, e.RecordedAt.UnixMilli())
	a.frames.put(e.Seq, b)
	return b
}

func chunkKind(channel string) string {
	if channel == event.ChannelThinking {
		return "agent_thought_chunk"
	}
	return "agent_message_chunk"
}

func (a *attachment) delta(d *event.MessageDeltaPayload, emit func(any)) {
	if u := deltaUpdate(a.shown, d); u != nil {
		emit(u)
	}
}

// deltaUpdate is a delta's update: a chunk, or a call's first tool_call
// (shown records the calls shown); nil for none.
func deltaUpdate(shown map[string]bool, d *event.MessageDeltaPayload) any {
	switch d.Channel {
	case event.ChannelText:
		return &chunk{SessionUpdate: "agent_message_chunk", Content: contentBlock{Type: "text", Text: d.Text}, MessageID: d.MessageID}
	case event.ChannelThinking:
		return &chunk{SessionUpdate: "agent_thought_chunk", Content: contentBlock{Type: "text", Text: d.Text}, MessageID: d.MessageID}
	case event.ChannelToolCallArgs:
		if d.ToolCallID == "" || shown[d.ToolCallID] {
			return nil
		}
		shown[d.ToolCallID] = true
		return &toolCallUpdate{SessionUpdate: "tool_call", ToolCallID: d.ToolCallID, Title: d.ToolName, Kind: toolKind(d.ToolName, ""), Status: "pending"}
	}
	return nil
}

// toolUpdate shows a call's whole current state: tool_call the first time,
// tool_call_update after.
func (a *attachment) toolUpdate(call *projection.ToolCall, emit func(any)) {
	if u := toolUpdateOf(a.shown, call); u != nil {
		emit(u)
	}
}

func toolUpdateOf(shown map[string]bool, call *projection.ToolCall) *toolCallUpdate {
	if call == nil {
		return nil
	}
	u := toolState(call)
	u.SessionUpdate = "tool_call_update"
	if !shown[call.ID] {
		shown[call.ID] = true
		u.SessionUpdate = "tool_call"
	}
	return u
}

// decision is the response chain's verdict on e's agent update: from the
// log (update.transformed) or from the session's gate.
func (a *attachment) decision(c *conn, e event.Event) (decision, bool) {
	if !overrides.AgentKind(e.Kind) {
		return decision{}, false
	}
	if d, ok := a.overrides[e.Seq]; ok {
		return d, true
	}
	return c.cfg.Pipeline.gateDecision(a.id, e.Seq)
}

func toolState(call *projection.ToolCall) *toolCallUpdate {
	u := &toolCallUpdate{ToolCallID: call.ID, Title: call.Name, Kind: toolKind(call.Name, call.Category), Status: toolStatus(call)}
	if call.Arguments != "" && validJSON(call.Arguments) {
		u.RawInput = []byte(call.Arguments)
	}
	out := call.Output
	if call.Result != nil {
		out = call.Result.Output
	}
	if out != "" {
		u.Content = []toolContent{{Type: "content", Content: &contentBlock{Type: "text", Text: out}}}
	}
	return u
}

func toolStatus(call *projection.ToolCall) string {
	switch call.State {
	case projection.CallRunning:
		return "in_progress"
	case projection.CallRefused:
		return "failed"
	case projection.CallDone:
		if call.Result != nil && call.Result.Status == "success" {
			return "completed"
		}
		return "failed"
	}
	return "pending"
}

// toolKind is ACP's ToolKind for a built-in tool, else by category.
func toolKind(name, category string) string {
	switch name {
	case "read":
		return "read"
	case "write", "edit":
		return "edit"
	case "bash":
		return "execute"
	case "glob", "grep", "ls":
		return "search"
	}
	switch category {
	case "info":
		return "read"
	case "edit":
		return "edit"
	case "exec":
		return "execute"
	}
	return "other"
}

func userChunks(p *event.Prompt, emit func(any)) {
	for _, b := range p.Content {
		emit(&chunk{SessionUpdate: "user_message_chunk", Content: acpBlock(b), MessageID: p.MessageID})
	}
}

func (a *attachment) runStarted(c *conn, ctx actor.Context, ch projection.Change, p *event.RunStartedPayload, live bool, emit func(any)) {
	if !live {
		if ch.Delivered != nil {
			userChunks(ch.Delivered, emit)
		}
		return
	}
	c.notify(ctx, "hydra-acp/prompt_queue/removed", queueRemoved{SessionID: a.id, MessageID: p.RunID, Reason: "started"})
	if _, mine := a.prompts[p.RunID]; mine || ch.Delivered == nil {
		return
	}
	emit(&promptReceived{SessionUpdate: "prompt_received", MessageID: p.RunID, Prompt: acpBlocks(ch.Delivered.Content), SentBy: ch.Delivered.Client})
}

// stopReason is ACP's for a canonical one; a failed run has none (its
// sender gets an error).
func stopReason(canonical string) string {
	if canonical == "error" {
		return "end_turn"
	}
	return canonical
}

func (a *attachment) runEnded(c *conn, ctx actor.Context, p *event.RunEndedPayload, live bool, emit func(any)) {
	if live {
		// A command whose run ended before it asked (cancelled at once).
		c.cfg.Pipeline.queueLeft(a.id, p.RunID)
	}
	if req, mine := a.prompts[p.RunID]; mine && live {
		delete(a.prompts, p.RunID)
		if p.StopReason == "error" {
			c.fail(ctx, req, jsonrpc.NewErrorData(jsonrpc.CodeInternal, "the run failed: "+p.Error, map[string]any{"errorKind": p.ErrorKind, "retryable": p.Retryable}))
		} else {
			c.reply(ctx, req, promptResult{StopReason: stopReason(p.StopReason)})
		}
	} else {
		emit(&turnComplete{SessionUpdate: "turn_complete", StopReason: stopReason(p.StopReason), MessageID: p.RunID})
	}
	if live {
		a.attention(c, ctx)
	}
}

func (a *attachment) settings(c *conn, p *event.Settings, emit func(any)) {
	if p.ApprovalMode != nil {
		emit(&modeUpdate{SessionUpdate: "current_mode_update", CurrentModeID: *p.ApprovalMode})
	}
	if p.Model != nil || p.ThinkingLevel != nil || p.ApprovalMode != nil {
		emit(&configUpdate{SessionUpdate: "config_option_update", ConfigOptions: c.configOptions(a.view.Settings)})
	}
	if p.Title != nil {
		emit(&infoUpdate{SessionUpdate: "session_info_update", Title: *p.Title})
	}
}

func compaction(e event.Event, p *event.CompactionPayload) *compactionUpdate {
	if e.Kind == event.CompactionStarted {
		return &compactionUpdate{SessionUpdate: "hydra_compaction", Phase: "started", RequestedAt: e.RecordedAt.UnixMilli()}
	}
	if p.Error != "" || p.Aborted {
		msg := p.Error
		if msg == "" {
			msg = "aborted"
		}
		return &compactionUpdate{SessionUpdate: "hydra_compaction", Phase: "failed", Error: msg}
	}
	return &compactionUpdate{SessionUpdate: "hydra_compaction", Phase: "swapped"}
}

// usage is a step's usage_update: the context used (the step's input and
// output) out of the model's window.
func (c *conn) usage(v *projection.View, p *event.StepEndedPayload) *usageUpdate {
	u := &usageUpdate{SessionUpdate: "usage_update", Used: p.Usage.Input + p.Usage.CacheRead + p.Usage.Output}
	if m, ok := c.model(v.Settings); ok {
		u.Size = int64(m.ContextWindow)
	}
	if p.Usage.Cost > 0 {
		u.Cost = &usageCost{Amount: p.Usage.Cost, Currency: "USD"}
	}
	return u
}

func acpBlock(b event.Block) contentBlock {
	switch b.Type {
	case "image":
		return contentBlock{Type: "image", Data: b.Data, MimeType: b.MimeType, URI: b.URI}
	case "resource":
		return contentBlock{Type: "resource_link", URI: b.URI, MimeType: b.MimeType, Text: b.Text}
	}
	return contentBlock{Type: "text", Text: b.Text}
}

func acpBlocks(bs []event.Block) []contentBlock {
	out := make([]contentBlock, len(bs))
	for i, b := range bs {
		out[i] = acpBlock(b)
	}
	return out
}

func validJSON(s string) bool { return json.Valid([]byte(s)) }
