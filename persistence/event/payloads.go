package event

import (
	"encoding/json"
	"strconv"
)

// Payload shapes of the canonical kinds. Field names are snake_case and
// stable: stored logs outlive the code that wrote them, so fields are only
// ever added.

// Block is one piece of prompt or message content.
type Block struct {
	Type     string `json:"type"` // text | image | resource
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"` // base64 for images
	MimeType string `json:"mime_type,omitempty"`
	URI      string `json:"uri,omitempty"`
}

// Usage counts tokens and their cost in US dollars.
type Usage struct {
	Input      int64   `json:"input,omitempty"`
	Output     int64   `json:"output,omitempty"`
	CacheRead  int64   `json:"cache_read,omitempty"`
	CacheWrite int64   `json:"cache_write,omitempty"`
	Cost       float64 `json:"cost,omitempty"`
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.Input += u2.Input
	u.Output += u2.Output
	u.CacheRead += u2.CacheRead
	u.CacheWrite += u2.CacheWrite
	u.Cost += u2.Cost
}

// Settings are the session's adjustable knobs; nil fields are unchanged.
type Settings struct {
	Provider *string `json:"provider,omitempty"`
	Model    *string `json:"model,omitempty"`
	// BaseURL is the endpoint given for the provider (troupe run's
	// --base-url), kept so that a resume runs where the session ran; ""
	// or unset: the provider's configured one. Never an API key. It
	// belongs to its provider: a change of provider that names none
	// drops it (Merge).
	BaseURL        *string `json:"base_url,omitempty"`
	ThinkingLevel  *string `json:"thinking_level,omitempty"`
	ApprovalMode   *string `json:"approval_mode,omitempty"` // default | auto_edit | yolo
	SteeringMode   *string `json:"steering_mode,omitempty"` // all | one-at-a-time
	FollowUpMode   *string `json:"follow_up_mode,omitempty"`
	AutoCompaction *bool   `json:"auto_compaction,omitempty"`
	AutoRetry      *bool   `json:"auto_retry,omitempty"`
	Title          *string `json:"title,omitempty"`
	CrashPolicy    *string `json:"crash_policy,omitempty"` // resume | stop
	// Agent names the ACP agent that answers the session's prompts, an id
	// the daemon's agent catalogue resolves to a program when it starts it;
	// unset (or "troupe") is troupe's own engine. AgentArgs are the
	// creator's extra arguments, appended to the catalogue's, never a
	// command.
	Agent     *string  `json:"agent,omitempty"`
	AgentArgs []string `json:"agent_args,omitempty"`
	// UpstreamSessionID is the session id the agent gave this session
	// (its session/new answer), which session/load names when the agent
	// is started again.
	UpstreamSessionID *string `json:"upstream_session_id,omitempty"`
	// AgentModels are the models the external agent advertised for its
	// session (its session/new or session/load answer): a session on
	// that agent offers these, not troupe's. AgentModel is the one a
	// client chose for it (session/set_model, or set_config_option's
	// model), forwarded to the agent before its next prompt.
	AgentModels *AgentModels `json:"agent_models,omitempty"`
	AgentModel  *string      `json:"agent_model,omitempty"`
}

// ForgetAgentModels is the settings change that drops what another
// agent said of its models and the model chosen among them: part of
// every change of a session's agent.
func ForgetAgentModels(s Settings) Settings {
	s.AgentModels, s.AgentModel = &AgentModels{Available: []AgentModel{}}, new("")
	return s
}

// AgentModels is what an external agent says of its models.
type AgentModels struct {
	Current   string       `json:"current,omitempty"`
	Available []AgentModel `json:"available"`
	// ConfigID is the agent's config option of the model category, which
	// session/set_config_option sets when the agent does not take
	// session/set_model; empty when it advertised none.
	ConfigID string `json:"config_id,omitempty"`
}

// AgentModel is one model an external agent offers.
type AgentModel struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// Merge returns s with every field upd sets replacing s's: the fold of a
// settings_changed event.
func (s Settings) Merge(upd Settings) Settings {
	set := func(dst **string, src *string) {
		if src != nil {
			*dst = src
		}
	}
	if upd.Provider != nil && upd.BaseURL == nil && (s.Provider == nil || *s.Provider != *upd.Provider) {
		s.BaseURL = nil // another provider's endpoint is its own
	}
	set(&s.Provider, upd.Provider)
	set(&s.Model, upd.Model)
	set(&s.BaseURL, upd.BaseURL)
	set(&s.ThinkingLevel, upd.ThinkingLevel)
	set(&s.ApprovalMode, upd.ApprovalMode)
	set(&s.SteeringMode, upd.SteeringMode)
	set(&s.FollowUpMode, upd.FollowUpMode)
	set(&s.Title, upd.Title)
	set(&s.CrashPolicy, upd.CrashPolicy)
	set(&s.Agent, upd.Agent)
	set(&s.UpstreamSessionID, upd.UpstreamSessionID)
	set(&s.AgentModel, upd.AgentModel)
	if upd.AgentModels != nil {
		s.AgentModels = upd.AgentModels
	}
	if upd.AgentArgs != nil {
		s.AgentArgs = upd.AgentArgs
	}
	if upd.AutoCompaction != nil {
		s.AutoCompaction = upd.AutoCompaction
	}
	if upd.AutoRetry != nil {
		s.AutoRetry = upd.AutoRetry
	}
	return s
}

// CreatedPayload opens every log (seq 1).
type CreatedPayload struct {
	Cwd             string          `json:"cwd,omitempty"`
	AdditionalDirs  []string        `json:"additional_dirs,omitempty"`
	Title           string          `json:"title,omitempty"`
	Settings        Settings        `json:"settings"`
	ParentSessionID string          `json:"parent_session_id,omitempty"`
	ForkedFromSeq   int64           `json:"forked_from_seq,omitempty"`
	ForkedFromEntry string          `json:"forked_from_entry,omitempty"`
	OriginClient    string          `json:"origin_client,omitempty"`
	OriginTransport string          `json:"origin_transport,omitempty"`
	MCPServers      json.RawMessage `json:"mcp_servers,omitempty"`
	// Interactive is the hydra tristate: absent undecided, false for a
	// piped session (troupe cat).
	Interactive *bool `json:"interactive,omitempty"`
	// LineageID names the conversation across exports and imports: an
	// imported session keeps its bundle's; empty means the session's own id.
	LineageID string `json:"lineage_id,omitempty"`
	// ImportedFrom is the session id the imported bundle was exported from.
	ImportedFrom string `json:"imported_from,omitempty"`
	// Transformers is the daemon's transformer chain the session started
	// with (hydra's session/new transformers, or the defaults, as resolved).
	Transformers []string `json:"transformers,omitempty"`
	// ChildOf is the session a transformer spawned this one for
	// (hydra-acp/child_session/spawn's parentSessionId); unlike
	// ParentSessionID it inherits no history.
	ChildOf string `json:"child_of,omitempty"`
	// ImportSanitized, on an imported session, is what the import did not
	// take from its bundle as it was.
	ImportSanitized *ImportSanitized `json:"import_sanitized,omitempty"`
}

// ImportSanitized is what an import did not take from its bundle as it
// was. A bundle is untrusted data: its MCP servers are not kept (they
// would start programs, or reach servers, as the daemon's user), its
// approval mode and crash policy are never more permissive than the
// daemon's, and its directories must exist here.
type ImportSanitized struct {
	// MCPServers names the bundle's MCP servers, none of which was kept.
	MCPServers []string `json:"mcp_servers,omitempty"`
	// ApprovalMode is the bundle's mode where it was more permissive
	// than the daemon's default, which replaced it.
	ApprovalMode string `json:"approval_mode,omitempty"`
	// CrashPolicy is the bundle's crash policy where it was not the
	// daemon's or stop; the daemon's replaced it.
	CrashPolicy string `json:"crash_policy,omitempty"`
	// AdditionalDirs are the bundle's additional directories left out:
	// not absolute, not an existing directory here, or the root.
	AdditionalDirs []string `json:"additional_dirs,omitempty"`
	// AgentArgs are the bundle's agent args, none of which was kept.
	AgentArgs []string `json:"agent_args,omitempty"`
	// AllowAlways counts the bundle's "always allow" permission decisions,
	// recorded as allow once: they allowed a category of calls elsewhere.
	AllowAlways int `json:"allow_always,omitempty"`
}

// PromptQueuedPayload records a prompt entering the queue.
type PromptQueuedPayload struct {
	MessageID      string  `json:"message_id"`
	Content        []Block `json:"content"`
	Delivery       string  `json:"delivery"`           // prompt | steer | follow_up
	Position       string  `json:"position,omitempty"` // head | tail | after
	AfterMessageID string  `json:"after_message_id,omitempty"`
	Client         string  `json:"client,omitempty"`
	// Ancillary marks machine traffic (hydra's `_meta["hydra-acp"].ancillary`:
	// `hydra cat`, a transformer's worker prompts): it neither titles the
	// session nor makes an undecided one interactive (the fold promotes
	// it on the first prompt that is not).
	Ancillary bool `json:"ancillary,omitempty"`
}

// PromptChangedPayload covers prompt.updated, prompt.cancelled and prompt.amended.
type PromptChangedPayload struct {
	MessageID string  `json:"message_id"`
	Content   []Block `json:"content,omitempty"`
	Reason    string  `json:"reason,omitempty"`
	Client    string  `json:"client,omitempty"`
}

// PromptDeliveredPayload: a steer or follow-up message entered run RunID.
type PromptDeliveredPayload struct {
	MessageID string `json:"message_id"`
	RunID     string `json:"run_id"`
	Delivery  string `json:"delivery"`
}

// RunStartedPayload marks the start of the run for one prompt.
type RunStartedPayload struct {
	RunID string `json:"run_id"` // the prompt's message id
}

// RunEndedPayload closes a run. StopReason is canonical:
// end_turn | max_tokens | max_turn_requests | refusal | cancelled | error.
type RunEndedPayload struct {
	RunID      string `json:"run_id"`
	StopReason string `json:"stop_reason"`
	Usage      Usage  `json:"usage"`
	Error      string `json:"error,omitempty"`
	// ErrorKind says where an error came from: provider (the model's
	// server), config (no usable model configuration), internal.
	ErrorKind string `json:"error_kind,omitempty"`
	// Retryable: the same request may succeed later (the engine's retries,
	// if enabled, gave up on a transient error).
	Retryable bool `json:"retryable,omitempty"`
}

// RunInterruptedPayload is written on recovery after a crash.
type RunInterruptedPayload struct {
	RunID       string   `json:"run_id"`
	ToolCallIDs []string `json:"tool_call_ids,omitempty"`
	Policy      string   `json:"policy"` // resume | stop
}

// StepStartedPayload opens one LLM call.
type StepStartedPayload struct {
	RunID        string `json:"run_id"`
	Step         int    `json:"step"`
	MaxSteps     int    `json:"max_steps,omitempty"`
	MessageCount int    `json:"message_count"`
	MessageID    string `json:"message_id"` // the assistant message it produces
	ToolStyle    string `json:"tool_style"` // native | text
	// Instruction is a user message the runtime adds before this call (the
	// max-turns request for a final answer).
	Instruction string `json:"instruction,omitempty"`
}

// StepEndedPayload closes one LLM call.
type StepEndedPayload struct {
	RunID        string `json:"run_id"`
	Step         int    `json:"step"`
	MessageID    string `json:"message_id"`
	FinishReason string `json:"finish_reason"`
	Usage        Usage  `json:"usage"`
}

// Delta channels.
const (
	ChannelText         = "text"
	ChannelThinking     = "thinking"
	ChannelToolCallArgs = "tool_call_args"
)

// MessageDeltaPayload is a piece of a streaming assistant message.
type MessageDeltaPayload struct {
	RunID      string `json:"run_id"`
	MessageID  string `json:"message_id"`
	Index      int    `json:"index"`
	Channel    string `json:"channel"`
	Text       string `json:"text"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
}

// ToolCall is a call as the model produced it.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// TextToolCallID is the id of the i-th call a run parsed from a message's
// text blocks (Raw): such calls carry no id of their own, so the log names
// them by their message, and every projection that reparses Raw names
// them the same.
func TextToolCallID(messageID string, i int) string { return messageID + "-t" + strconv.Itoa(i) }

// MalformedToolCallID is the id of the i-th text block that held no call:
// it is answered as a failed call.
func MalformedToolCallID(messageID string, i int) string { return messageID + "-e" + strconv.Itoa(i) }

// MessageCompletedPayload is the full assistant message of one step.
type MessageCompletedPayload struct {
	RunID     string     `json:"run_id"`
	MessageID string     `json:"message_id"`
	Text      string     `json:"text,omitempty"`
	Thinking  string     `json:"thinking,omitempty"`
	Raw       string     `json:"raw,omitempty"` // the text as produced, think and tool blocks included
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Continuation is what the provider that wrote the message needs back
	// to continue from it (thinking signatures, reasoning items); only that
	// provider reads it, and no projection shows it.
	Continuation *Continuation `json:"continuation,omitempty"`
}

// Continuation is a provider's opaque continuation state: the API that
// wrote it and its data (see runtime/llm.Continuation).
type Continuation struct {
	API  string          `json:"api"`
	Data json.RawMessage `json:"data"`
}

// ToolStartedPayload: a tool call begins executing (or waits for approval).
type ToolStartedPayload struct {
	RunID       string `json:"run_id"`
	ToolCallID  string `json:"tool_call_id"`
	Name        string `json:"name"`
	Category    string `json:"category"` // info | edit | exec | mcp
	Arguments   string `json:"arguments"`
	Description string `json:"description,omitempty"`
	// Origin says how the model asked: native tool_calls, or a text block,
	// whose result goes back as text.
	Origin    string `json:"origin"` // native | text
	MessageID string `json:"message_id"`
	// AwaitingApproval: a permission request follows; the call runs only
	// if it is allowed.
	AwaitingApproval bool `json:"awaiting_approval,omitempty"`
}

// PermissionOption is one choice offered to a client.
type PermissionOption struct {
	OptionID string `json:"option_id"`
	Name     string `json:"name"`
	Kind     string `json:"kind"` // allow_once | allow_always | reject_once | reject_always
}

// PermissionRequestedPayload asks clients to decide on a tool call.
type PermissionRequestedPayload struct {
	RunID      string             `json:"run_id"`
	ToolCallID string             `json:"tool_call_id"`
	Name       string             `json:"name"`
	Category   string             `json:"category"`
	Arguments  string             `json:"arguments"`
	Options    []PermissionOption `json:"options"`
}

// PermissionResolvedPayload records the decision.
type PermissionResolvedPayload struct {
	RunID      string `json:"run_id"`
	ToolCallID string `json:"tool_call_id"`
	Outcome    string `json:"outcome"` // allowed | denied | cancelled
	OptionID   string `json:"option_id,omitempty"`
	Reason     string `json:"reason,omitempty"`
	ResolvedBy string `json:"resolved_by,omitempty"` // the client's name (else its id), mode or allow_list
}

// ToolProgressPayload carries cumulative partial output.
type ToolProgressPayload struct {
	RunID      string `json:"run_id"`
	ToolCallID string `json:"tool_call_id"`
	Output     string `json:"output"`
}

// ToolProcessPayload: the call runs a process group (its leader's pid),
// and what proves it after a crash: the leader's start time (clock ticks
// since boot) and the boot's id. Recovery signals the group only when the
// leader still is that process and carries the marker only the troupe that
// started it can make (see runtime/proc's KillProven); a payload from
// anywhere else proves nothing.
type ToolProcessPayload struct {
	RunID      string `json:"run_id"`
	ToolCallID string `json:"tool_call_id"`
	Pgid       int    `json:"pgid"`
	Start      int64  `json:"start,omitempty"`
	Boot       string `json:"boot,omitempty"`
}

// ToolCompletedPayload ends a tool call.
type ToolCompletedPayload struct {
	RunID          string            `json:"run_id"`
	ToolCallID     string            `json:"tool_call_id"`
	Name           string            `json:"name"`
	Status         string            `json:"status"` // success | error | cancelled | interrupted | skipped
	Output         string            `json:"output"`
	OutputType     string            `json:"output_type,omitempty"` // text | diff
	Metadata       map[string]string `json:"metadata,omitempty"`
	DurationMS     int64             `json:"duration_ms"`
	FullOutputPath string            `json:"full_output_path,omitempty"`
}

// RetryPayload covers retry.started and retry.ended.
type RetryPayload struct {
	RunID       string `json:"run_id"`
	Attempt     int    `json:"attempt"`
	MaxAttempts int    `json:"max_attempts"`
	DelayMS     int64  `json:"delay_ms,omitempty"`
	Error       string `json:"error,omitempty"`
	Success     bool   `json:"success,omitempty"`
}

// CompactionPayload covers compaction.started and compaction.ended.
type CompactionPayload struct {
	Reason           string `json:"reason"` // threshold | overflow | manual
	Instructions     string `json:"instructions,omitempty"`
	Summary          string `json:"summary,omitempty"`
	FirstKeptEntryID string `json:"first_kept_entry_id,omitempty"`
	TokensBefore     int64  `json:"tokens_before,omitempty"`
	Aborted          bool   `json:"aborted,omitempty"`
	Error            string `json:"error,omitempty"`
}

// BashExecutedPayload is a user-run shell command, shown to the model on the
// next prompt.
type BashExecutedPayload struct {
	Command        string `json:"command"`
	Output         string `json:"output"`
	ExitCode       int    `json:"exit_code"`
	Cancelled      bool   `json:"cancelled,omitempty"`
	Truncated      bool   `json:"truncated,omitempty"`
	FullOutputPath string `json:"full_output_path,omitempty"`
}

// HistoryMessage is one imported message.
type HistoryMessage struct {
	Role       string     `json:"role"` // user | assistant | tool
	Content    string     `json:"content"`
	Thinking   string     `json:"thinking,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
}

// HistoryImportedPayload carries imported messages, oldest first.
type HistoryImportedPayload struct {
	Source   string           `json:"source,omitempty"` // e.g. init_history, a session file path
	Messages []HistoryMessage `json:"messages"`
}

// AttentionPayload records a change to a session's attention flags (the
// permission requests fold from their own events). An event carries only
// what changed (Change), so a log of n changes grows by n flags, not n
// sets. Events written before that carry the whole set instead: Flags,
// reasons raised by the daemon itself, and Set, flags with their source
// and payload. Apply folds both forms.
type AttentionPayload struct {
	Flags  []string        `json:"flags,omitempty"`
	Set    []AttentionFlag `json:"set,omitempty"`
	Change *AttentionDelta `json:"change,omitempty"`
}

// TransformerAttachedPayload records a transformer joining the chain.
type TransformerAttachedPayload struct {
	Name string `json:"name"`
}

// AttentionFlag is one raised flag, keyed by (Source, Reason).
type AttentionFlag struct {
	Source   string          `json:"source"`
	Reason   string          `json:"reason"`
	RaisedAt int64           `json:"raised_at"` // epoch ms
	Payload  json.RawMessage `json:"payload,omitempty"`
}

// All is the set with the daemon's plain reasons as flags of source
// "daemon", raised at.
func (p *AttentionPayload) All(at int64) []AttentionFlag {
	out := make([]AttentionFlag, 0, len(p.Flags)+len(p.Set))
	for _, r := range p.Flags {
		out = append(out, AttentionFlag{Source: "daemon", Reason: r, RaisedAt: at})
	}
	return append(out, p.Set...)
}

// MCPStatusPayload reports a change of one MCP server's state (see the
// MCPStatus* values). Error says why a server is unavailable or was lost;
// Tools is how many tools it offers once connected.
type MCPStatusPayload struct {
	Server string `json:"server"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	Tools  int    `json:"tools,omitempty"`
}

// UpdateTransformedPayload is a response chain's decision on the
// session/update of the event at Seq: Dropped (clients never see it), or
// Update, the ACP update object shown instead. From, when set, is the
// first of the events (chunks joined into one trip through the chain)
// whose updates the decision covers: those before Seq are dropped.
type UpdateTransformedPayload struct {
	Seq     int64           `json:"seq"`
	From    int64           `json:"from,omitempty"`
	Dropped bool            `json:"dropped,omitempty"`
	Update  json.RawMessage `json:"update,omitempty"`
}

// PlanPayload is an external agent's plan: every entry, each time.
type PlanPayload struct {
	RunID   string      `json:"run_id"`
	Entries []PlanEntry `json:"entries"`
}

// PlanEntry is one task of a plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority,omitempty"` // high | medium | low
	Status   string `json:"status,omitempty"`   // pending | in_progress | completed
}
