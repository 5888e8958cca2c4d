package acpupdate

import (
	"cmp"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/projection"
)

// Mapper shows a session's events, each folded into View first, as the
// session/updates a client attached from the start is shown: what REST's
// history, events and bundles serve and what ACP replays. ACP live shows
// the same updates but where the client is a party (the answer to its own
// prompt, its own permission answer); an attaching ACP client learns the
// title from the attach answer rather than from session.created, and sees
// a prompt replayed as its user chunks without prompt_received, the live
// marker for the clients that did not send it.
type Mapper struct {
	View *projection.View
	// Shown are the tool calls shown already: the first update of a call
	// is its tool_call, the others tool_call_update.
	Shown map[string]bool
	// Models resolves the session's model (usage_update's size, the model
	// config option); nil when none are known.
	Models sessions.Models
}

// NewMapper maps session id's events, folding them into a View of its own.
func NewMapper(id string, models sessions.Models) *Mapper {
	return &Mapper{View: &projection.View{SessionID: id, Deltas: true}, Shown: map[string]bool{}, Models: models}
}

// Apply folds e into the View and returns its updates.
func (m *Mapper) Apply(e event.Event) []any { return m.Updates(m.View.Apply(e)) }

// Updates returns the updates of the event the View returned ch for, in
// order, each with its id (Stamp); nil for an event no client is shown.
func (m *Mapper) Updates(ch projection.Change) []any {
	us := m.updates(ch)
	if len(us) == 0 {
		return nil
	}
	return Stamp(ch.Event.Seq, us)
}

func (m *Mapper) updates(ch projection.Change) []any {
	switch p := ch.Payload.(type) {
	case nil:
		if ch.Delta != nil {
			if u := Delta(m.Shown, ch.Delta); u != nil {
				return []any{u}
			}
		}
	case *event.CreatedPayload:
		if p.Title != "" && ch.Event.SessionID == m.View.SessionID {
			return []any{&Info{SessionUpdate: "session_info_update", Title: p.Title}}
		}
	case *event.RunStartedPayload:
		if ch.Delivered == nil {
			return nil
		}
		return append(CompatChunks(ch.Delivered), Received(p.RunID, ch.Delivered))
	case *event.PromptDeliveredPayload:
		if ch.Delivered != nil {
			return UserChunks(ch.Delivered)
		}
	case *event.HistoryImportedPayload:
		return Imported(p)
	case *event.ToolStartedPayload, *event.ToolProgressPayload, *event.ToolCompletedPayload:
		if u := Tool(m.Shown, ch.Call); u != nil {
			return []any{u}
		}
	case *event.PermissionResolvedPayload:
		var out []any
		if u := Tool(m.Shown, ch.Call); u != nil {
			out = append(out, u)
		}
		return append(out, Resolved(p))
	case *event.StepEndedPayload:
		return []any{UsageOf(m.Models, m.View, p)}
	case *event.RunEndedPayload:
		return []any{TurnEnded(p)}
	case *event.Settings:
		return SettingsChanged(m.Models, m.View.Settings, p)
	case *event.CompactionPayload:
		return []any{CompactionOf(ch.Event, p, m.View.Title)}
	case *event.RetryPayload:
		return []any{RetryOf(ch.Event, p)}
	case *event.PlanPayload:
		return []any{Plan(p)}
	}
	return nil
}

// Plan is an agent's plan as ACP's plan update.
func Plan(p *event.PlanPayload) *PlanUpdate {
	entries := make([]PlanEntry, len(p.Entries))
	for i, e := range p.Entries {
		entries[i] = PlanEntry{Content: e.Content, Priority: e.Priority, Status: e.Status}
	}
	return &PlanUpdate{SessionUpdate: "plan", Entries: entries}
}

// ChunkKind is the chunk a text or thinking delta streams into.
func ChunkKind(channel string) string {
	if channel == event.ChannelThinking {
		return "agent_thought_chunk"
	}
	return "agent_message_chunk"
}

// Delta is a delta's update: a chunk, or a call's first tool_call (shown
// records the calls shown); nil for none.
func Delta(shown map[string]bool, d *event.MessageDeltaPayload) any {
	switch d.Channel {
	case event.ChannelText, event.ChannelThinking:
		return &Chunk{SessionUpdate: ChunkKind(d.Channel), Content: ContentBlock{Type: "text", Text: d.Text}, Meta: MessageMeta(d.MessageID)}
	case event.ChannelToolCallArgs:
		if d.ToolCallID == "" || shown[d.ToolCallID] {
			return nil
		}
		shown[d.ToolCallID] = true
		return &ToolCall{SessionUpdate: "tool_call", ToolCallID: d.ToolCallID, Title: ToolTitle(d.ToolName), Kind: ToolKind(d.ToolName, ""), Status: "pending"}
	}
	return nil
}

// Tool is a call's whole current state: its tool_call the first time
// (shown records the calls shown), tool_call_update after; nil for none.
func Tool(shown map[string]bool, call *projection.ToolCall) *ToolCall {
	if call == nil {
		return nil
	}
	u := ToolState(call)
	u.SessionUpdate = "tool_call_update"
	if !shown[call.ID] {
		shown[call.ID] = true
		u.SessionUpdate = "tool_call"
	}
	return u
}

// Block is an event content block as ACP's.
func Block(b event.Block) ContentBlock {
	switch b.Type {
	case "image":
		return ContentBlock{Type: "image", Data: b.Data, MimeType: b.MimeType, URI: b.URI}
	case "resource":
		return ContentBlock{Type: "resource_link", URI: b.URI, MimeType: b.MimeType, Text: b.Text}
	}
	return ContentBlock{Type: "text", Text: b.Text}
}

// Blocks are event content blocks as ACP's.
func Blocks(bs []event.Block) []ContentBlock {
	out := make([]ContentBlock, len(bs))
	for i, b := range bs {
		out[i] = Block(b)
	}
	return out
}

// UserChunks are a prompt's user_message_chunks, one per block.
func UserChunks(p *event.Prompt) []any {
	out := make([]any, 0, len(p.Content)+1)
	for _, b := range p.Content {
		out = append(out, &Chunk{SessionUpdate: "user_message_chunk", Content: Block(b), Meta: MessageMeta(p.MessageID)})
	}
	return out
}

// CompatChunks are the user_message_chunks of a prompt a run started,
// shown with its prompt_received and marked as repeating it (Hydra's
// compatFor): clients that know prompt_received skip them, the others
// show the prompt from them.
func CompatChunks(p *event.Prompt) []any {
	out := UserChunks(p)
	for _, u := range out {
		c := u.(*Chunk)
		if c.Meta == nil {
			c.Meta = &UpdateMeta{}
		}
		c.Meta.Hydra.CompatFor = "prompt_received"
	}
	return out
}

// Received is the prompt_received of the prompt run runID started.
func Received(runID string, p *event.Prompt) *PromptReceived {
	r := &PromptReceived{SessionUpdate: "prompt_received", Prompt: Blocks(p.Content), Meta: MessageMeta(runID)}
	if p.Client != "" {
		r.SentBy = &SentBy{ClientID: p.Client}
	}
	return r
}

// Imported shows a conversation brought in (history.imported) as the
// chunks a client would have seen of it.
func Imported(p *event.HistoryImportedPayload) []any {
	var out []any
	for _, m := range p.Messages {
		switch m.Role {
		case "user":
			out = append(out, &Chunk{SessionUpdate: "user_message_chunk", Content: ContentBlock{Type: "text", Text: m.Content}})
		case "assistant":
			out = append(out, &Chunk{SessionUpdate: "agent_message_chunk", Content: ContentBlock{Type: "text", Text: m.Content}})
		}
	}
	return out
}

// StopReason is ACP's for a canonical one; a failed run has none (its
// sender gets an error).
func StopReason(canonical string) string {
	if canonical == "error" {
		return "end_turn"
	}
	return canonical
}

// TurnEnded is a run's turn_complete.
func TurnEnded(p *event.RunEndedPayload) *TurnComplete {
	return &TurnComplete{SessionUpdate: "turn_complete", StopReason: StopReason(p.StopReason), Meta: MessageMeta(p.RunID)}
}

// Resolved is a permission's permission_resolved.
func Resolved(p *event.PermissionResolvedPayload) *PermissionResolved {
	return &PermissionResolved{SessionUpdate: "permission_resolved", ToolCallID: p.ToolCallID, Outcome: p.Outcome, ChosenOptionID: p.OptionID, OptionID: p.OptionID, ResolvedBy: p.ResolvedBy}
}

// SettingsChanged are the updates of a settings change p, cur the
// session's settings with it: its mode, its config options, its title.
func SettingsChanged(models sessions.Models, cur event.Settings, p *event.Settings) []any {
	var out []any
	if p.ApprovalMode != nil {
		out = append(out, &Mode{SessionUpdate: "current_mode_update", CurrentModeID: *p.ApprovalMode})
	}
	if p.Model != nil || p.ThinkingLevel != nil || p.ApprovalMode != nil || p.AgentModel != nil || p.AgentModels != nil {
		out = append(out, &Config{SessionUpdate: "config_option_update", ConfigOptions: ConfigOptions(models, cur)})
	}
	if p.Title != nil {
		out = append(out, &Info{SessionUpdate: "session_info_update", Title: *p.Title})
	}
	return out
}

// CompactionOf is a compaction's hydra_compaction: started, swapped
// (with the session's title, as Hydra's carries it) or failed. Hydra's
// iteration, deferred and rolled_back phases belong to its agent swap
// (a catch-up loop, an idle wait for the swap, an uncompact) and have no
// counterpart here; nor has swapped's summarizedThroughEntry, an index
// into Hydra's history file.
func CompactionOf(e event.Event, p *event.CompactionPayload, title string) *Compaction {
	if e.Kind == event.CompactionStarted {
		return &Compaction{SessionUpdate: "hydra_compaction", Phase: "started", RequestedAt: e.RecordedAt.UnixMilli()}
	}
	if p.Error != "" || p.Aborted {
		msg := cmp.Or(p.Error, "aborted")
		return &Compaction{SessionUpdate: "hydra_compaction", Phase: "failed", Error: msg}
	}
	return &Compaction{SessionUpdate: "hydra_compaction", Phase: "swapped", Title: title}
}

// RetryOf is a retry event's troupe_retry. The log counts attempts (the
// first included); a client is told of retries: retry.started's attempt
// is the one that failed, so it is the retry's number, and the retries
// are one fewer than the attempts.
func RetryOf(e event.Event, p *event.RetryPayload) *Retry {
	u := &Retry{SessionUpdate: "troupe_retry", Attempt: p.Attempt, Retries: max(p.MaxAttempts-1, 0)}
	switch {
	case e.Kind == event.RetryStarted:
		u.Phase, u.DelayMS, u.Error = "started", p.DelayMS, p.Error
	case p.Success:
		u.Phase, u.Attempt = "recovered", p.Attempt-1
	default:
		u.Phase, u.Attempt, u.Error = "failed", p.Attempt-1, p.Error
	}
	return u
}

// UsageOf is a step's usage_update: the context used (the step's input and
// output) out of the model's window, and the session's running totals
// (v folded the step already), omitted while nothing was spent.
func UsageOf(models sessions.Models, v *projection.View, p *event.StepEndedPayload) *Usage {
	u := &Usage{SessionUpdate: "usage_update", Used: p.Usage.Input + p.Usage.CacheRead + p.Usage.Output}
	if m, ok := Model(models, v.Settings); ok {
		u.Size = int64(m.ContextWindow)
	}
	total := v.Usage
	for _, r := range v.Runs {
		total.Add(r.Usage)
	}
	if total.Cost > 0 {
		u.Cost = &Cost{Amount: total.Cost, Currency: "USD"}
	}
	if total != (event.Usage{}) {
		u.TokenUsage = &TokenUsage{Prompt: total.Input, Completion: total.Output, CacheRead: total.CacheRead, CacheWrite: total.CacheWrite}
	}
	return u
}

// Describe is an update's sessionUpdate and messageId: of a shape of this
// package, or of an update object decoded from JSON (a rewrite the
// response chain recorded).
func Describe(u any) (kind, messageID string) {
	switch u := u.(type) {
	case *Chunk:
		return u.SessionUpdate, u.MessageID
	case *ToolCall:
		return u.SessionUpdate, u.MessageID
	case *Usage:
		return u.SessionUpdate, ""
	case *Mode:
		return u.SessionUpdate, ""
	case *Config:
		return u.SessionUpdate, ""
	case *Info:
		return u.SessionUpdate, ""
	case *PromptReceived:
		return u.SessionUpdate, u.MessageID
	case *TurnComplete:
		return u.SessionUpdate, u.MessageID
	case *PermissionResolved:
		return u.SessionUpdate, u.MessageID
	case *Compaction:
		return u.SessionUpdate, ""
	case *Retry:
		return u.SessionUpdate, ""
	case *PlanUpdate:
		return u.SessionUpdate, u.MessageID
	case map[string]any:
		kind, _ = u["sessionUpdate"].(string)
		messageID, _ = u["messageId"].(string)
		return kind, messageID
	}
	return "", ""
}
