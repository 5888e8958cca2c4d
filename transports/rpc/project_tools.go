package rpc

import (
	"fmt"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/conversation"
	"github.com/troupehq/troupe/transports/projection"
)

func (f *fold) toolStarted(id, name, args string) {
	if f.shown[id] {
		return
	}
	// Tools run after the step's message ended; a message still held is
	// waiting for a finish reason that did not come.
	if f.held != nil {
		f.held.StopReason = "toolUse"
		f.settle("")
	}
	f.shown[id] = true
	f.out(toolEvent{Type: "tool_execution_start", ToolCallID: id, ToolName: name, Args: argsJSON(args)})
}

// messageCall is the call as the step's message shows it (pi's events
// carry the arguments the model wrote).
func messageCall(ch projection.Change, id string) event.ToolCall {
	c, _ := ch.Step.MessageCall(id)
	return c
}

func (f *fold) toolProgress(ch projection.Change, p *event.ToolProgressPayload) {
	if !f.live() {
		return
	}
	c := messageCall(ch, p.ToolCallID)
	f.out(toolEvent{
		Type: "tool_execution_update", ToolCallID: p.ToolCallID, ToolName: c.Name, Args: argsJSON(c.Arguments),
		PartialResult: &toolResultJSON{
			Content: []any{textBlock{Type: "text", Text: p.Output}},
			Details: map[string]any{"truncation": nil, "fullOutputPath": nil},
		},
	})
}

func (f *fold) toolCompleted(ch projection.Change, p *event.ToolCompletedPayload, ts int64) {
	if !f.shown[p.ToolCallID] {
		// Calls skipped for a steer or closed by a cancel never started;
		// the protocol still shows a start for each end.
		f.toolStarted(p.ToolCallID, p.Name, messageCall(ch, p.ToolCallID).Arguments)
	}
	details := map[string]any{"status": p.Status, "fullOutputPath": nil}
	if p.FullOutputPath != "" {
		details["fullOutputPath"] = p.FullOutputPath
	}
	for k, v := range p.Metadata {
		details[k] = v
	}
	text := conversation.ResultText(p)
	content := []any{textBlock{Type: "text", Text: text}}
	isErr := p.Status != "success"
	f.out(toolEvent{
		Type: "tool_execution_end", ToolCallID: p.ToolCallID, ToolName: p.Name,
		Result: &toolResultJSON{Content: content, Details: details}, IsError: &isErr,
	})
	m := &toolResultMessage{Role: "toolResult", ToolCallID: p.ToolCallID, ToolName: p.Name, Content: content,
		Details: details, IsError: isErr, Timestamp: ts, entryID: "result-" + p.ToolCallID}
	f.out(messageEvent{Type: "message_start", Message: m})
	f.out(messageEvent{Type: "message_end", Message: m})
	f.addMessage(m)
	f.turnResults = append(f.turnResults, m)
}

// abandon ends, as pi ends a failed stream, the assistant message a
// retried attempt streamed: message_end with stopReason error and the
// error, before auto_retry_start. It is not the conversation's: the next
// attempt streams the step's message again (restart).
func (f *fold) abandon(ch projection.Change, p *event.RetryPayload, ts int64) {
	if len(ch.Abandoned) == 0 || f.asst == nil {
		return // nothing streamed: the message started goes on
	}
	f.asst.closeBlock(f)
	m := f.asst.partialMessage()
	m.StopReason, m.ErrorMessage = "error", p.Error
	f.out(updateEvent{Type: "message_update", Message: m, AssistantMessageEvent: finalEvent{Type: "error", Reason: "error", Error: m}})
	f.out(messageEvent{Type: "message_end", Message: m})
	f.asst = nil
}

// restart opens the message the next attempt streams, after an abandoned
// one was ended.
func (f *fold) restart(ch projection.Change, ts int64) {
	if len(ch.Abandoned) == 0 || f.asst != nil || ch.Step == nil {
		return
	}
	provider, model := f.models.current(f.Settings)
	f.asst = newStreaming(ch.Step.MessageID, provider, model, ts, f.partials)
	if f.live() {
		f.write(f.asst.startLine())
	}
}

func (f *fold) retry(kind event.Kind, p *event.RetryPayload) {
	if kind == event.RetryStarted {
		// pi counts the retries (maxAttempts 3: three retries after the
		// first failure); the log counts the attempts, the first included.
		f.out(retryStartEvent{Type: "auto_retry_start", Attempt: p.Attempt, MaxAttempts: max(p.MaxAttempts-1, 0), DelayMs: p.DelayMS, ErrorMessage: p.Error})
		return
	}
	ev := retryEndEvent{Type: "auto_retry_end", Success: p.Success, Attempt: p.Attempt}
	if !p.Success {
		ev.FinalError = p.Error
	}
	f.out(ev)
}

func (f *fold) compaction(kind event.Kind, p *event.CompactionPayload, ts int64) {
	// Manual compaction answers the compact command; only automatic
	// compaction is an event in this protocol.
	auto := p.Reason != event.CompactionManual
	if kind == event.CompactionStarted {
		if auto {
			f.out(compactionStartEvent{Type: "auto_compaction_start", Reason: p.Reason})
		}
		return
	}
	ok := p.Summary != "" && !p.Aborted && p.Error == ""
	if ok {
		f.compact(p, ts)
	}
	if !auto {
		return
	}
	ev := compactionEndEvent{Type: "auto_compaction_end", Aborted: p.Aborted, WillRetry: ok && p.Reason == event.CompactionOverflow, ErrorMessage: p.Error}
	if ok {
		ev.Result = compactResult(p.Summary, p.FirstKeptEntryID, p.TokensBefore)
	}
	f.out(ev)
}

func compactResult(summary, firstKept string, tokensBefore int64) *compactResultJSON {
	return &compactResultJSON{Summary: summary, FirstKeptEntryID: firstKept, TokensBefore: tokensBefore, Details: map[string]any{}}
}

// compact replaces the messages before the first kept entry by the
// summary, as the model's history does.
func (f *fold) compact(p *event.CompactionPayload, ts int64) {
	kept := f.messages
	for i, m := range f.messages {
		if entryOf(m) == p.FirstKeptEntryID {
			kept = f.messages[i:]
			break
		}
	}
	next := []any{&summaryMessage{Role: "compactionSummary", Summary: p.Summary, TokensBefore: p.TokensBefore, Timestamp: ts}}
	f.messages = append(next, kept...)
}

func (f *fold) bash(e event.Event, p *event.BashExecutedPayload, ts int64) {
	m := &bashMessage{Role: "bashExecution", Command: p.Command, Output: p.Output, ExitCode: p.ExitCode,
		Cancelled: p.Cancelled, Truncated: p.Truncated, Timestamp: ts, entryID: fmt.Sprintf("bash-%d", e.Seq)}
	if p.FullOutputPath != "" {
		path := p.FullOutputPath
		m.FullOutputPath = &path
	}
	f.messages = append(f.messages, m)
}

func (f *fold) imported(e event.Event, p *event.HistoryImportedPayload, ts int64) {
	provider, model := f.models.current(f.Settings)
	for i, h := range p.Messages {
		id := fmt.Sprintf("import-%d-%d", e.Seq, i)
		switch h.Role {
		case "user":
			f.addMessage(&userMessage{Role: "user", Content: h.Content, Timestamp: ts, Attachments: []any{}, entryID: id, text: h.Content})
		case "assistant":
			f.addMessage(&assistantMessage{Role: "assistant", API: api, Provider: provider, Model: model, StopReason: "stop", Timestamp: ts, entryID: id, text: h.Content,
				Content: assistantContent(h.Thinking, h.Content, h.ToolCalls)})
		case "tool":
			f.addMessage(&toolResultMessage{Role: "toolResult", ToolCallID: h.ToolCallID, ToolName: h.ToolName,
				Content: []any{textBlock{Type: "text", Text: h.Content}}, Details: map[string]any{}, Timestamp: ts, entryID: id})
		}
	}
}
