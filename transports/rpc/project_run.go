package rpc

import (
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/conversation"
	"github.com/troupehq/troupe/transports/projection"
)

// A run as pi shows it: agent_start, then per step a turn (turn_start, the
// user messages that joined, the assistant message streaming, its tool
// executions and results, turn_end), then agent_end with the run's
// messages.

func (f *fold) startRun() {
	f.runMsgs = nil
	f.out(typeOnly{Type: "agent_start"})
}

// deliver turns a prompt the view delivered into the user message shown at
// the start of the next turn, as the reference orders it.
func (f *fold) deliver(p *event.Prompt, ts int64) {
	if p == nil {
		return
	}
	f.pendingUser = append(f.pendingUser, newUser(p.MessageID, p.Content, ts))
}

func newUser(id string, blocks []event.Block, ts int64) *userMessage {
	m := conversation.UserMessage(blocks)
	var imgs []imageBlock
	for _, i := range m.Images {
		imgs = append(imgs, imageBlock{Type: "image", Data: i.Data, MimeType: i.MIMEType})
	}
	return &userMessage{Role: "user", Content: userContent(m.Content, imgs), Timestamp: ts, Attachments: []any{}, entryID: id, text: m.Content}
}

func (f *fold) addMessage(m any) {
	f.messages = append(f.messages, m)
	if f.Run() != nil || f.ending {
		f.runMsgs = append(f.runMsgs, m)
	}
	switch m := m.(type) {
	case *userMessage:
		f.stats.User++
	case *assistantMessage:
		f.stats.Assistant++
		f.stats.ToolCalls += len(m.Content) - countNonCalls(m.Content)
		t := m.text
		f.lastText = &t
	case *toolResultMessage:
		f.stats.ToolResults++
	}
}

func countNonCalls(blocks []any) int {
	n := 0
	for _, b := range blocks {
		if _, ok := b.(toolCallBlock); !ok {
			n++
		}
	}
	return n
}

func (f *fold) flushUsers() {
	for _, u := range f.pendingUser {
		f.addMessage(u)
		f.out(messageEvent{Type: "message_start", Message: u})
		f.out(messageEvent{Type: "message_end", Message: u})
	}
	f.pendingUser = nil
}

type messageEvent struct {
	Type    string `json:"type"`
	Message any    `json:"message"`
}

func (f *fold) startStep(ch projection.Change, p *event.StepStartedPayload, ts int64) {
	if ch.RunOpened {
		// A run resumed after a crash: its agent_start was in another life.
		f.startRun()
	}
	f.endTurn()
	f.turnOpen = true
	f.out(typeOnly{Type: "turn_start"})
	f.flushUsers()
	if p.Instruction != "" {
		f.pendingUser = append(f.pendingUser, &userMessage{Role: "user", Content: p.Instruction, Timestamp: ts, Attachments: []any{}, entryID: "instruction-" + p.MessageID, text: p.Instruction})
		f.flushUsers()
	}
	provider, model := f.models.current(f.Settings)
	f.asst = newStreaming(p.MessageID, provider, model, ts, f.partials)
	f.shown = map[string]bool{}
	if f.live() {
		f.write(f.asst.startLine())
	}
}

func (f *fold) endTurn() {
	if !f.turnOpen {
		return
	}
	f.settle("")
	f.turnOpen = false
	results := f.turnResults
	if results == nil {
		results = []any{}
	}
	var msg any
	if f.turnMsg != nil {
		msg = f.turnMsg
	}
	f.out(turnEndEvent{Type: "turn_end", Message: msg, ToolResults: results})
	f.turnMsg, f.turnResults = nil, nil
}

func (f *fold) completed(p *event.MessageCompletedPayload, ts int64) {
	provider, model := f.models.current(f.Settings)
	calls := projection.MessageCalls(p)
	if f.asst != nil {
		f.asst.closeBlock(f)
		// Calls the model wrote as text blocks never streamed as calls:
		// show each now as a native one streams, so a pi client sees the
		// same toolcall_start, _delta and _end either way.
		for _, c := range calls[len(p.ToolCalls):] {
			src := &projection.Block{Channel: event.ChannelToolCallArgs, ToolCallID: c.ID, ToolName: c.Name, Text: []byte(c.Arguments)}
			f.asst.delta(f, src, true, c.Arguments)
		}
		f.asst.closeBlock(f)
		ts = f.asst.ts
	}
	f.held = &assistantMessage{Role: "assistant", API: api, Provider: provider, Model: model, Timestamp: ts, entryID: p.MessageID, text: p.Text,
		Content: assistantContent(p.Thinking, p.Text, calls), calls: len(calls)}
}

// assistantContent is an assistant message's blocks: thinking, text, then
// the tool calls.
func assistantContent(thinking, text string, calls []event.ToolCall) []any {
	content := []any{}
	if thinking != "" {
		content = append(content, thinkingBlock{Type: "thinking", Thinking: thinking})
	}
	if text != "" {
		content = append(content, textBlock{Type: "text", Text: text})
	}
	for _, c := range calls {
		content = append(content, toolCallBlock{Type: "toolCall", ID: c.ID, Name: c.Name, Arguments: argsJSON(c.Arguments)})
	}
	return content
}

func (f *fold) stepEnded(p *event.StepEndedPayload) {
	if f.held == nil {
		return
	}
	f.held.Usage = f.usageJSON(p.Usage)
	stop := finishStop(p.FinishReason)
	if stop == "stop" && f.held.calls > 0 {
		stop = "toolUse" // calls written as text end a step the server calls stopped
	}
	if stop != "" {
		f.held.StopReason = stop
		f.settle("")
	}
}

// settle ends the assistant message of the step: the held complete one, or
// what streamed of one that never completed.
func (f *fold) settle(stop string) {
	m := f.held
	if m == nil && f.asst != nil && stop != "" {
		m = f.asst.partialMessage()
	}
	f.asst = nil
	if m == nil {
		return
	}
	f.held = nil
	if m.StopReason == "" {
		m.StopReason = stop
	}
	if m.StopReason == "" {
		m.StopReason = "stop"
	}
	ev := finalEvent{Type: "done", Reason: m.StopReason, Message: m}
	if m.StopReason == "error" || m.StopReason == "aborted" {
		ev = finalEvent{Type: "error", Reason: m.StopReason, Error: m}
	}
	f.out(updateEvent{Type: "message_update", Message: m, AssistantMessageEvent: ev})
	f.out(messageEvent{Type: "message_end", Message: m})
	f.addMessage(m)
	f.turnMsg = m
}

const api = "openai-completions"

// finishStop is pi's stop reason for a step's finish reason.
func finishStop(finish string) string {
	switch finish {
	case "stop":
		return "stop"
	case "tool_calls":
		return "toolUse"
	case "length":
		return "length"
	case "content_filter":
		return "error"
	case "interrupted", "cancelled":
		return "aborted"
	}
	return ""
}

// runStop is pi's stop reason for a run's canonical one.
func runStop(stop string) string {
	switch stop {
	case event.StopCancelled:
		return "aborted"
	case event.StopError, event.StopRefusal:
		return "error"
	case event.StopMaxTokens:
		return "length"
	}
	return "stop"
}

func (f *fold) usageJSON(u event.Usage) usageJSON {
	provider, model := f.models.current(f.Settings)
	return usageJSON{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite,
		TotalTokens: u.Input + u.Output + u.CacheRead + u.CacheWrite, Cost: f.models.price(provider, model, u)}
}

func (f *fold) endRun(p *event.RunEndedPayload) {
	// The view has ended the run; what settles now is still of it.
	f.ending = true
	defer func() { f.ending = false }()
	stop := runStop(p.StopReason)
	if f.held == nil && f.asst != nil {
		// Cut before it completed: what streamed is the message.
		f.held = f.asst.partialMessage()
	}
	if f.held != nil && p.Error != "" {
		f.held.ErrorMessage = p.Error
	}
	if f.held != nil && (p.StopReason == event.StopCancelled || p.StopReason == event.StopError) {
		f.held.StopReason = stop
	}
	f.settle(stop)
	f.endTurn()
	msgs := f.runMsgs
	if msgs == nil {
		msgs = []any{}
	}
	f.out(agentEndEvent{Type: "agent_end", Messages: msgs})
	f.runMsgs, f.pendingUser = nil, nil
	if f.onRunEnded != nil {
		f.onRunEnded(p.RunID)
	}
}
