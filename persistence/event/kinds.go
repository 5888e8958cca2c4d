package event

import (
	"maps"
	"slices"
)

// Kind names what happened. Names are "subject.verb" so a projection can
// switch on the subject first.
type Kind string

// The canonical kinds. ARCHITECTURE.md maps each to the protocols.
const (
	SessionCreated         Kind = "session.created"
	SessionSettingsChanged Kind = "session.settings_changed"

	PromptQueued    Kind = "prompt.queued"
	PromptUpdated   Kind = "prompt.updated"
	PromptCancelled Kind = "prompt.cancelled"
	PromptAmended   Kind = "prompt.amended"
	// PromptDelivered: a queued steer or follow-up message joined the
	// running run's conversation (a plain prompt is delivered by run.started).
	PromptDelivered Kind = "prompt.delivered"

	// A run is everything done for one prompt; a step is one LLM call and
	// the tool calls it asked for.
	RunStarted     Kind = "run.started"
	RunEnded       Kind = "run.ended"
	RunInterrupted Kind = "run.interrupted"
	StepStarted    Kind = "step.started"
	StepEnded      Kind = "step.ended"

	MessageDelta     Kind = "message.delta"
	MessageCompleted Kind = "message.completed"

	ToolStarted             Kind = "tool.started"
	ToolPermissionRequested Kind = "tool.permission_requested"
	ToolPermissionResolved  Kind = "tool.permission_resolved"
	ToolProgress            Kind = "tool.progress"
	ToolCompleted           Kind = "tool.completed"
	// ToolProcess records the process group a call started, so that after
	// a crash the runtime can kill what is left of it. Not projected.
	ToolProcess Kind = "tool.process"

	RetryStarted Kind = "retry.started"
	RetryEnded   Kind = "retry.ended"

	CompactionStarted Kind = "compaction.started"
	CompactionEnded   Kind = "compaction.ended"

	BashExecuted Kind = "bash.executed"
	// HistoryImported adds messages to the conversation that no run of this
	// session produced (a host's earlier history, an imported session file).
	HistoryImported  Kind = "history.imported"
	AttentionChanged Kind = "attention.changed"

	// MCPStatus: one of the session's MCP servers never came up, dropped
	// and is being reconnected, or is back. Written once per change, not
	// per turn or per attempt; the fold and the runs ignore it.
	MCPStatus Kind = "mcp.status"

	// TransformerAttached: a transformer joined the session's chain after
	// its creation (hydra-acp/transformer/attach); the chain it started
	// with is in session.created.
	TransformerAttached Kind = "transformer.attached"

	// UpdateTransformed: a transformer on the session's response chain
	// rewrote or dropped the session/update of the event at seq, so that
	// a replay shows what live clients were shown. Not folded.
	UpdateTransformed Kind = "update.transformed"

	// PlanUpdated: an external agent's plan for the run (ACP's plan
	// update), whole each time: it replaces the previous one.
	PlanUpdated Kind = "plan.updated"
)

var known = map[Kind]bool{
	SessionCreated: true, SessionSettingsChanged: true,
	PromptQueued: true, PromptUpdated: true, PromptCancelled: true, PromptAmended: true, PromptDelivered: true,
	RunStarted: true, RunEnded: true, RunInterrupted: true, StepStarted: true, StepEnded: true,
	MessageDelta: true, MessageCompleted: true,
	ToolStarted: true, ToolPermissionRequested: true, ToolPermissionResolved: true,
	ToolProgress: true, ToolCompleted: true, ToolProcess: true,
	RetryStarted: true, RetryEnded: true,
	CompactionStarted: true, CompactionEnded: true,
	BashExecuted: true, HistoryImported: true, AttentionChanged: true,
	MCPStatus: true, TransformerAttached: true, UpdateTransformed: true,
	PlanUpdated: true,
}

// Known reports whether k is a canonical kind.
func (k Kind) Known() bool { return known[k] }

// Kinds lists every canonical kind.
func Kinds() []Kind {
	return slices.Collect(maps.Keys(known))
}
