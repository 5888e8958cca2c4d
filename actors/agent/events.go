package agent

// Event kinds, as the hugind bridge names its events.
const (
	KindStatus = "status"
	KindLog    = "log"
	KindAgent  = "agent_event"
	// KindTrace is the TROUPE_TRACE / HUGIND_TRACE line for stderr.
	KindTrace = "trace"
)

// Event is one thing a run says; Data marshals as the bridge's data.
type Event struct {
	Kind string
	Data any
}

// Status is a status event's data.
type Status struct {
	Message string `json:"message"`
	Agent   string `json:"agent,omitempty"`
}

// Log is print's output.
type Log struct {
	Message string `json:"message"`
	Stream  string `json:"stream,omitempty"` // "stderr": eprint in script mode
}

// The agent_event data, fields in the spec's order.
type (
	SetupEvent struct {
		Type      string `json:"type"`
		ToolCount int    `json:"tool_count"`
	}
	TurnEvent struct {
		Type         string `json:"type"`
		Turn         int    `json:"turn"`
		MaxTurns     int    `json:"max_turns"`
		MessageCount int    `json:"message_count"`
	}
	ToolCallEvent struct {
		Type string `json:"type"`
		Name string `json:"name"`
		Args any    `json:"args"`
	}
	ToolResultEvent struct {
		Type       string `json:"type"`
		Name       string `json:"name"`
		Result     string `json:"result"`
		DurationMS int64  `json:"duration_ms"`
	}
	ProgressEvent struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	CompleteEvent struct {
		Type     string `json:"type"`
		Turns    int    `json:"turns"`
		FinalLen int    `json:"final_len"`
	}
)

// maxEventResult is where agent.tool_result's result is cut (2 KB).
const maxEventResult = 2048

// cut shortens s to at most n bytes without splitting a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
