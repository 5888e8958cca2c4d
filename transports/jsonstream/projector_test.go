package jsonstream

import (
	"encoding/json"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/testkit"
)

func ev(t *testing.T, kind event.Kind, p any) event.Event {
	t.Helper()
	d, err := event.NewDraft(kind, p)
	testkit.NoError(t, err)
	return event.Event{Kind: kind, Payload: d.Payload}
}

func lines(t *testing.T, p *Projector, evs ...event.Event) []string {
	t.Helper()
	var out []string
	for _, e := range evs {
		for _, v := range p.Project(e) {
			b, err := json.Marshal(v)
			testkit.NoError(t, err)
			out = append(out, string(b))
		}
	}
	return out
}

// A run met in the middle (resumed after a crash) opens with stream_start;
// a denied call shows tool_cancelled once, not a tool_result as well; a
// failure after retries is a retryable provider_error.
func TestProjector(t *testing.T) {
	p := NewProjector("default")
	got := lines(t, p,
		ev(t, event.StepStarted, event.StepStartedPayload{RunID: "r", Step: 1, MessageID: "a"}),
		ev(t, event.ToolStarted, event.ToolStartedPayload{RunID: "r", ToolCallID: "c", Name: "bash", AwaitingApproval: true}),
		ev(t, event.ToolPermissionRequested, event.PermissionRequestedPayload{RunID: "r", ToolCallID: "c", Name: "bash", Category: "exec", Arguments: "not json"}),
		ev(t, event.ToolPermissionResolved, event.PermissionResolvedPayload{RunID: "r", ToolCallID: "c", Outcome: "denied"}),
		ev(t, event.ToolCompleted, event.ToolCompletedPayload{RunID: "r", ToolCallID: "c", Name: "bash", Status: "error", Output: "Permission denied by the user."}),
		ev(t, event.RetryStarted, event.RetryPayload{RunID: "r", Attempt: 1, MaxAttempts: 2, DelayMS: 10, Error: "503"}),
		ev(t, event.RetryEnded, event.RetryPayload{RunID: "r", Attempt: 2, MaxAttempts: 2, Error: "503"}),
		ev(t, event.RunEnded, event.RunEndedPayload{RunID: "r", StopReason: "error", Error: "503"}),
		ev(t, event.SessionSettingsChanged, event.Settings{ApprovalMode: ptr("yolo")}),
	)
	testkit.DeepEqual(t, got, []string{
		`{"type":"stream_start","msg_id":"r"}`,
		`{"type":"tool_request","msg_id":"r","call_id":"c","tool":{"name":"Bash","category":"exec","args":"not json","description":"Call bash"}}`,
		`{"type":"tool_cancelled","msg_id":"r","call_id":"c","reason":"User denied"}`,
		`{"type":"info","msg_id":"r","message":"provider error: 503; retrying in 10ms (1/1)"}`,
		`{"type":"error","msg_id":"r","error":{"code":"provider_error","message":"503","retryable":true}}`,
		`{"type":"stream_end","msg_id":"r","usage":{"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0}}`,
		`{"type":"config_changed","capabilities":{"tool_approval":true,"thinking":true,"mcp":false,"modes":["default","auto_edit","yolo"],"current_mode":"yolo"}}`,
	})
	// A run that fails before its first LLM call could not resolve its model.
	got = lines(t, p,
		ev(t, event.RunStarted, event.RunStartedPayload{RunID: "r2"}),
		ev(t, event.RunEnded, event.RunEndedPayload{RunID: "r2", StopReason: "error", Error: "no provider selected"}),
	)
	testkit.Equal(t, got[1], `{"type":"error","msg_id":"r2","error":{"code":"config_error","message":"no provider selected","retryable":false}}`)
}

func ptr(s string) *string { return &s }

// An MCP server's change of state is an info line, with no run: aionrs
// has no event of its own for it.
func TestProjectorMCPStatus(t *testing.T) {
	got := lines(t, NewProjector("default"),
		ev(t, event.MCPStatus, event.MCPStatusPayload{Server: "gone", Status: event.MCPStatusUnavailable, Error: "exec: not found"}),
		ev(t, event.MCPStatus, event.MCPStatusPayload{Server: "t", Status: event.MCPStatusLost, Error: "exit status 3"}),
		ev(t, event.MCPStatus, event.MCPStatusPayload{Server: "t", Status: event.MCPStatusConnected, Tools: 4}),
	)
	testkit.DeepEqual(t, got, []string{
		`{"type":"info","msg_id":null,"message":"MCP server gone is unavailable (exec: not found); retrying in the background"}`,
		`{"type":"info","msg_id":null,"message":"MCP server t was lost (exit status 3); restarting it"}`,
		`{"type":"info","msg_id":null,"message":"MCP server t is connected (4 tools)"}`,
	})
}
