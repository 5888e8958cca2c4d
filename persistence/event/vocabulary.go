package event

// The values of the payloads' enumerated fields. The engine writes them,
// every client reads them; they live with the schema so that a client
// needs nothing of the engine to understand a log.

// Stop reasons of run.ended (ACP's names plus error).
const (
	StopEndTurn         = "end_turn"
	StopMaxTokens       = "max_tokens"
	StopMaxTurnRequests = "max_turn_requests"
	StopRefusal         = "refusal"
	StopCancelled       = "cancelled"
	StopError           = "error"
)

// Error kinds of run.ended: the provider failed, or the session's model
// configuration did not resolve.
const (
	ErrorKindProvider = "provider"
	ErrorKindConfig   = "config"
)

// Approval modes (settings' approval_mode; the aionrs spec's names).
const (
	ApprovalDefault  = "default"
	ApprovalAutoEdit = "auto_edit"
	ApprovalYolo     = "yolo"
)

// ApprovalModes lists the approval modes, least permissive first.
func ApprovalModes() []string {
	return []string{ApprovalDefault, ApprovalAutoEdit, ApprovalYolo}
}

// Outcomes of tool.permission_resolved.
const (
	PermissionAllowed   = "allowed"
	PermissionDenied    = "denied"
	PermissionCancelled = "cancelled"
)

// ResolvedByMode is tool.permission_resolved's resolved_by when the
// approval mode decided: an allow after a mode change, or a denial because
// no one could be asked.
const ResolvedByMode = "mode"

// Statuses of tool.completed.
const (
	ToolSuccess     = "success"
	ToolError       = "error"
	ToolCancelled   = "cancelled"
	ToolInterrupted = "interrupted" // cut off by a crash; never re-run
	ToolSkipped     = "skipped"     // not run: a steer arrived first
)

// Compaction reasons of compaction.started and compaction.ended.
const (
	CompactionThreshold = "threshold"
	CompactionOverflow  = "overflow"
	CompactionManual    = "manual"
)

// Deliveries of prompt.queued.
const (
	DeliveryPrompt   = "prompt"    // runs as a run of its own
	DeliverySteer    = "steer"     // joins the running run at its next tool boundary
	DeliveryFollowUp = "follow_up" // joins the running run when the model stops calling tools
)

// Queue modes (settings' steering_mode and follow_up_mode): how many
// waiting steering or follow-up messages are delivered at once.
const (
	QueueAll        = "all"
	QueueOneAtATime = "one-at-a-time"
)

// Crash policies (settings' crash_policy): what recovery does with a run a
// crash interrupted.
const (
	CrashResume = "resume"
	CrashStop   = "stop"
)

// Tool styles of step.started: how the model was offered tools.
const (
	ToolStyleNative = "native"
	ToolStyleText   = "text"
)

// Statuses of mcp.status.
const (
	MCPStatusUnavailable = "unavailable" // never came up; retried quietly with backoff
	MCPStatusLost        = "lost"        // dropped; being restarted with backoff
	MCPStatusConnected   = "connected"   // up again after unavailable or lost
)
