package upstream

import (
	"encoding/json"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
	acp "github.com/coder/acp-go-sdk"
	"github.com/troupehq/troupe/actors/sessions/internal/run"
	"github.com/troupehq/troupe/persistence/event"
)

// turn maps one prompt's session/updates to canonical events. An agent's
// reply is cut into steps as troupe's own are: a step is a message (text,
// thinking) and the tool calls that follow it; the next text after a call
// opens the next step.
type turn struct {
	a         *agent
	runID     string
	token     uint64
	cancelled bool

	step     int
	msgID    string // the open message; empty: none
	index    int    // of the next delta in the open message
	text     strings.Builder
	thinking strings.Builder
	calls    []event.ToolCall // the open message's (the one that closes it)

	tools map[string]*toolCall // by ACP tool call id
	perms map[string]*permissionAsked
	usage event.Usage
	out   []event.Draft // emitted, not yet sent to the session
	cost  *float64      // the session's total the agent last reported
}

type toolCall struct {
	name, category, args string
	done                 bool
}

func newTurn(a *agent, m *Turn) *turn {
	return &turn{a: a, runID: m.RunID, token: m.Token, tools: map[string]*toolCall{}, perms: map[string]*permissionAsked{}}
}

// emit adds one event of this turn to what the session is asked to
// append at the end of the message being handled (flush): a batch of the
// agent's updates is one commit.
func (t *turn) emit(_ actor.Context, kind event.Kind, p any) {
	d, err := event.NewDraft(kind, p)
	if err != nil {
		t.a.log.Error("event not recorded", "kind", kind, "error", err)
		return
	}
	t.out = append(t.out, d)
}

// flush asks the session to append the events emitted so far, in order.
func (t *turn) flush(ctx actor.Context) {
	if len(t.out) == 0 {
		return
	}
	ctx.Send(t.a.cfg.Session, &run.Emit{RunID: t.runID, Token: t.token, Events: t.out})
	t.out = nil
}

func (t *turn) update(ctx actor.Context, u acp.SessionUpdate) {
	switch {
	case u.AgentMessageChunk != nil:
		t.chunk(ctx, event.ChannelText, u.AgentMessageChunk.Content)
	case u.AgentThoughtChunk != nil:
		t.chunk(ctx, event.ChannelThinking, u.AgentThoughtChunk.Content)
	case u.ToolCall != nil:
		c := u.ToolCall
		t.startCall(ctx, string(c.ToolCallId), c.Title, c.Kind, c.RawInput)
		t.progress(ctx, string(c.ToolCallId), &c.Status, c.Content, c.RawOutput)
	case u.ToolCallUpdate != nil:
		c := u.ToolCallUpdate
		if _, ok := t.tools[string(c.ToolCallId)]; !ok {
			t.startCall(ctx, string(c.ToolCallId), deref(c.Title), deref(c.Kind), c.RawInput)
		}
		t.progress(ctx, string(c.ToolCallId), c.Status, c.Content, c.RawOutput)
	case u.Plan != nil:
		p := event.PlanPayload{RunID: t.runID, Entries: make([]event.PlanEntry, len(u.Plan.Entries))}
		for i, e := range u.Plan.Entries {
			p.Entries[i] = event.PlanEntry{Content: e.Content, Priority: string(e.Priority), Status: string(e.Status)}
		}
		t.emit(ctx, event.PlanUpdated, p)
	case u.UsageUpdate != nil && u.UsageUpdate.Cost != nil:
		t.cost = &u.UsageUpdate.Cost.Amount
	}
}

func (t *turn) chunk(ctx actor.Context, channel string, c acp.ContentBlock) {
	if c.Text == nil || c.Text.Text == "" {
		return
	}
	text := c.Text.Text
	t.openMessage(ctx)
	if channel == event.ChannelThinking {
		t.thinking.WriteString(text)
	} else {
		t.text.WriteString(text)
	}
	t.emit(ctx, event.MessageDelta, event.MessageDeltaPayload{RunID: t.runID, MessageID: t.msgID, Index: t.index, Channel: channel, Text: text})
	t.index++
}

func (t *turn) openMessage(ctx actor.Context) {
	if t.msgID != "" {
		return
	}
	t.step++
	t.msgID = t.a.cfg.NewID("msg")
	t.index = 0
	t.emit(ctx, event.StepStarted, event.StepStartedPayload{RunID: t.runID, Step: t.step, MessageID: t.msgID, ToolStyle: event.ToolStyleNative})
}

// closeMessage completes the open message and its step.
func (t *turn) closeMessage(ctx actor.Context, finish string) {
	if t.msgID == "" {
		return
	}
	t.emit(ctx, event.MessageCompleted, event.MessageCompletedPayload{RunID: t.runID, MessageID: t.msgID,
		Text: t.text.String(), Thinking: t.thinking.String(), ToolCalls: t.calls})
	t.emit(ctx, event.StepEnded, event.StepEndedPayload{RunID: t.runID, Step: t.step, MessageID: t.msgID, FinishReason: finish})
	t.msgID, t.calls = "", nil
	t.text.Reset()
	t.thinking.Reset()
}

// startCall records a call the agent makes: it completes the open message
// (a step of its own when none is open) with the call, as a model's step
// ends with its calls, so the conversation has the call before its result.
func (t *turn) startCall(ctx actor.Context, id, title string, kind acp.ToolKind, input any) {
	if _, ok := t.tools[id]; ok || id == "" {
		return
	}
	t.openMessage(ctx)
	args := "{}"
	if input != nil {
		if b, err := json.Marshal(input); err == nil {
			args = string(b)
		}
	}
	if title == "" {
		title = string(kind)
	}
	c := &toolCall{name: title, category: category(kind), args: args}
	t.tools[id] = c
	t.calls = append(t.calls, event.ToolCall{ID: id, Name: c.name, Arguments: args})
	msgID := t.msgID
	t.closeMessage(ctx, "tool_calls")
	t.emit(ctx, event.ToolStarted, event.ToolStartedPayload{RunID: t.runID, ToolCallID: id, Name: c.name, Category: c.category,
		Arguments: args, Origin: "native", MessageID: msgID})
}

// progress records a call's output so far, and its end.
func (t *turn) progress(ctx actor.Context, id string, status *acp.ToolCallStatus, content []acp.ToolCallContent, raw any) {
	c := t.tools[id]
	if c == nil || c.done {
		return
	}
	out := contentText(content, raw)
	st := ""
	if status != nil {
		st = string(*status)
	}
	switch st {
	case string(acp.ToolCallStatusCompleted), string(acp.ToolCallStatusFailed):
		c.done = true
		status := "success"
		if st == string(acp.ToolCallStatusFailed) {
			status = "error"
		}
		t.emit(ctx, event.ToolCompleted, event.ToolCompletedPayload{RunID: t.runID, ToolCallID: id, Name: c.name, Status: status, Output: out})
	default:
		if out != "" {
			t.emit(ctx, event.ToolProgress, event.ToolProgressPayload{RunID: t.runID, ToolCallID: id, Output: out})
		}
	}
}

// askPermission puts the agent's request to the clients, as the
// session's own requests are: recorded, then answered by a Decide.
func (t *turn) askPermission(ctx actor.Context, m *permissionAsked) {
	id := string(m.req.ToolCall.ToolCallId)
	if _, open := t.perms[id]; open || id == "" {
		m.reply <- acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}
		return
	}
	if _, ok := t.tools[id]; !ok {
		tc := m.req.ToolCall
		t.startCall(ctx, id, deref(tc.Title), deref(tc.Kind), tc.RawInput)
	}
	c := t.tools[id]
	opts := make([]event.PermissionOption, len(m.req.Options))
	for i, o := range m.req.Options {
		opts[i] = event.PermissionOption{OptionID: string(o.OptionId), Name: o.Name, Kind: string(o.Kind)}
	}
	t.perms[id] = m
	t.emit(ctx, event.ToolPermissionRequested, event.PermissionRequestedPayload{RunID: t.runID, ToolCallID: id, Name: c.name,
		Category: c.category, Arguments: c.args, Options: opts})
}

func (t *turn) decide(ctx actor.Context, d *run.Decide) error {
	p, ok := t.perms[d.ToolCallID]
	if !ok {
		return ErrNoPermission
	}
	delete(t.perms, d.ToolCallID)
	outcome := event.PermissionDenied
	if d.Allow {
		outcome = event.PermissionAllowed
	}
	option := d.OptionID
	if option == "" {
		option = pickOption(p.req.Options, d.Allow, d.Always)
	}
	t.emit(ctx, event.ToolPermissionResolved, event.PermissionResolvedPayload{RunID: t.runID, ToolCallID: d.ToolCallID,
		Outcome: outcome, OptionID: option, Reason: d.Reason, ResolvedBy: d.By})
	p.reply <- acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(acp.PermissionOptionId(option))}
	return nil
}

// cancelPermissions answers every open request as cancelled (ACP: a
// cancelled turn's permission requests are answered so).
func (t *turn) cancelPermissions(ctx actor.Context, reason string) {
	for id, p := range t.perms {
		t.emit(ctx, event.ToolPermissionResolved, event.PermissionResolvedPayload{RunID: t.runID, ToolCallID: id,
			Outcome: event.PermissionCancelled, Reason: reason})
		p.reply <- acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}
	}
	clear(t.perms)
}

// end closes what the turn left open and ends its run.
func (t *turn) end(ctx actor.Context, stop, why string, usage *acp.Usage) {
	t.cancelPermissions(ctx, "the turn ended")
	t.closeMessage(ctx, finishReason(stop))
	for id, c := range t.tools {
		if c.done {
			continue
		}
		status := "cancelled"
		if stop == event.StopError {
			status = "interrupted"
		}
		t.emit(ctx, event.ToolCompleted, event.ToolCompletedPayload{RunID: t.runID, ToolCallID: id, Name: c.name, Status: status, Output: why})
	}
	if usage != nil {
		t.usage.Input, t.usage.Output = int64(usage.InputTokens), int64(usage.OutputTokens)
		if usage.CachedReadTokens != nil {
			t.usage.CacheRead = int64(*usage.CachedReadTokens)
		}
		if usage.CachedWriteTokens != nil {
			t.usage.CacheWrite = int64(*usage.CachedWriteTokens)
		}
	}
	if t.cost != nil {
		// The agent reports the session's total; the run records its part.
		t.usage.Cost = *t.cost - t.a.cost
		t.a.cost = *t.cost
	}
	p := event.RunEndedPayload{RunID: t.runID, StopReason: stop, Usage: t.usage, Error: why}
	if stop == event.StopError {
		p.ErrorKind = "agent"
	}
	t.emit(ctx, event.RunEnded, p)
	t.flush(ctx)
	ctx.Send(t.a.cfg.Session, &run.Finished{RunID: t.runID, Token: t.token, StopReason: stop})
}

func finishReason(stop string) string {
	switch stop {
	case event.StopMaxTokens:
		return "length"
	case event.StopRefusal:
		return "content_filter"
	}
	return "stop"
}

// pickOption is the agent's option for a decision that named none.
func pickOption(opts []acp.PermissionOption, allow, always bool) string {
	want := []acp.PermissionOptionKind{acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways}
	if allow {
		want = []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways}
		if always {
			want[0], want[1] = want[1], want[0]
		}
	}
	for _, k := range want {
		for _, o := range opts {
			if o.Kind == k {
				return string(o.OptionId)
			}
		}
	}
	return ""
}

// category is troupe's category for an ACP tool kind.
func category(k acp.ToolKind) string {
	switch k {
	case acp.ToolKindRead, acp.ToolKindSearch, acp.ToolKindThink, acp.ToolKindFetch:
		return "info"
	case acp.ToolKindEdit, acp.ToolKindDelete, acp.ToolKindMove:
		return "edit"
	case acp.ToolKindExecute:
		return "exec"
	}
	return "mcp"
}

// contentText is a call's output as text: its text content and diffs,
// else its raw output.
func contentText(content []acp.ToolCallContent, raw any) string {
	var parts []string
	for _, c := range content {
		switch {
		case c.Content != nil && c.Content.Content.Text != nil:
			parts = append(parts, c.Content.Content.Text.Text)
		case c.Diff != nil:
			parts = append(parts, c.Diff.Path+"\n"+c.Diff.NewText)
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, "\n")
	}
	switch r := raw.(type) {
	case nil:
		return ""
	case string:
		return r
	default:
		b, _ := json.Marshal(r)
		return string(b)
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// commandDone ends a turn a daemon's command answered.
func (t *turn) commandDone(ctx actor.Context, m *commandDone) {
	if m.err != nil {
		t.end(ctx, event.StopError, m.err.Error(), nil)
		return
	}
	if m.reply != "" {
		t.chunk(ctx, event.ChannelText, acp.TextBlock(m.reply))
	}
	t.end(ctx, event.StopEndTurn, "", nil)
}
