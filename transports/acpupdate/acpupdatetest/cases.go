// Package acpupdatetest is the table every view of a session's updates is
// tested on: for every canonical event kind, a log ending in an event of
// that kind and the session/updates a client attached from the start is
// shown of it. REST's projector and ACP's replay each run the table, so
// that they agree with it, and so with each other; a kind without a row
// fails both.
//
// It is for tests only; nothing outside _test.go files imports it.
package acpupdatetest

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/projection/projectiontest"
)

// Case is one event kind's row.
type Case struct {
	Name string
	Kind event.Kind
	// Log ends in the event of Kind; what comes before sets it up.
	Log *projectiontest.Log
	// Want are the last event's updates, as JSON, in order.
	Want []string
}

// Replayed is Want without the state updates (acpupdate.State): what an
// ACP replay shows of the event in the history (the state's current value
// closes the replay instead).
func (c Case) Replayed() []string {
	var out []string
	for _, w := range c.Want {
		var u struct {
			SessionUpdate string `json:"sessionUpdate"`
		}
		if json.Unmarshal([]byte(w), &u) != nil || !acpupdate.State(u.SessionUpdate) {
			out = append(out, w)
		}
	}
	return out
}

// Session is the id of every case's session.
const Session = "s1"

const (
	modeOption  = `{"id":"mode","name":"Approval mode","category":"mode","type":"select","currentValue":"yolo","options":[{"value":"default","name":"Ask before edits and commands"},{"value":"auto_edit","name":"Edit without asking"},{"value":"yolo","name":"Run everything without asking"}]}`
	modelOption = `{"id":"model","name":"Model","category":"model","type":"select","currentValue":"tiny","options":[{"value":"tiny","name":"Tiny"}]}`
)

// Cases are the rows, at least one for every kind event.Kinds lists.
func Cases(tb testing.TB) []Case {
	tb.Helper()
	cases := rows(tb)
	for _, k := range event.Kinds() {
		if !slices.ContainsFunc(cases, func(c Case) bool { return c.Kind == k }) {
			tb.Errorf("event kind %s has no row in acpupdatetest.Cases: say what a client is shown of it", k)
		}
	}
	for _, c := range cases {
		if last := c.Log.Events[len(c.Log.Events)-1]; last.Kind != c.Kind {
			tb.Errorf("row %s ends in %s, not %s", c.Name, last.Kind, c.Kind)
		}
	}
	return cases
}

// milliAt is the recordedAt, in epoch ms, of a log's event n.
func milliAt(n int) string {
	return strconv.FormatInt(projectiontest.T0.Add(time.Duration(n)*time.Millisecond).UnixMilli(), 10)
}

func created(tb testing.TB) *projectiontest.Log {
	provider, model := "openai", "tiny"
	return projectiontest.NewLog(tb, Session).Add(event.SessionCreated, event.CreatedPayload{Cwd: "/work", Title: "a test",
		Settings: event.Settings{Provider: &provider, Model: &model}})
}

// queued is created, then prompt m1 queued by client editor.
func queued(tb testing.TB) *projectiontest.Log {
	return created(tb).Add(event.PromptQueued, event.PromptQueuedPayload{MessageID: "m1", Client: "editor",
		Content: []event.Block{{Type: "text", Text: "find the bug"}, {Type: "resource", URI: "file:///work/main.go"}}})
}

// running is queued, then its run started and its first step.
func running(tb testing.TB) *projectiontest.Log {
	return queued(tb).Add(event.RunStarted, event.RunStartedPayload{RunID: "m1"}).
		Add(event.StepStarted, event.StepStartedPayload{RunID: "m1", Step: 1, MessageCount: 1, MessageID: "a1"})
}

// calling is running, then the model's grep call streamed and started,
// waiting for approval.
func calling(tb testing.TB) *projectiontest.Log {
	return running(tb).CallDeltas("m1", "a1", "c1", "grep", `{"pattern":`, `"TODO"}`).
		Add(event.ToolStarted, event.ToolStartedPayload{RunID: "m1", ToolCallID: "c1", Name: "grep", Category: "info",
			Arguments: `{"pattern":"TODO"}`, Description: "look for TODOs", Origin: "native", MessageID: "a1", AwaitingApproval: true})
}

func allowed(tb testing.TB) *projectiontest.Log {
	return calling(tb).
		Add(event.ToolPermissionRequested, event.PermissionRequestedPayload{RunID: "m1", ToolCallID: "c1", Name: "grep", Category: "info",
			Arguments: `{"pattern":"TODO"}`, Options: []event.PermissionOption{{OptionID: "allow", Name: "Allow", Kind: "allow_once"}}}).
		Add(event.ToolPermissionResolved, event.PermissionResolvedPayload{RunID: "m1", ToolCallID: "c1", Outcome: "allowed", OptionID: "allow", ResolvedBy: "editor"})
}

const grepPending = `"toolCallId":"c1","title":"grep","kind":"search","status":"pending","rawInput":{"pattern":"TODO"}`

func rows(tb testing.TB) []Case {
	yolo, title := event.ApprovalYolo, "renamed"
	return []Case{
		{Name: "created", Kind: event.SessionCreated, Log: created(tb),
			Want: []string{`{"sessionUpdate":"session_info_update","title":"a test"}`}},
		{Name: "settings", Kind: event.SessionSettingsChanged,
			Log: created(tb).Add(event.SessionSettingsChanged, event.Settings{ApprovalMode: &yolo, Title: &title}),
			Want: []string{`{"sessionUpdate":"current_mode_update","currentModeId":"yolo"}`,
				`{"sessionUpdate":"config_option_update","configOptions":[` + modeOption + `,` + modelOption + `]}`,
				`{"sessionUpdate":"session_info_update","title":"renamed"}`}},
		{Name: "queued", Kind: event.PromptQueued, Log: queued(tb)},
		{Name: "updated", Kind: event.PromptUpdated, Log: queued(tb).Add(event.PromptUpdated,
			event.PromptChangedPayload{MessageID: "m1", Content: []event.Block{{Type: "text", Text: "find both bugs"}}})},
		{Name: "cancelled", Kind: event.PromptCancelled, Log: queued(tb).Add(event.PromptCancelled, event.PromptChangedPayload{MessageID: "m1", Reason: "user"})},
		{Name: "amended", Kind: event.PromptAmended, Log: queued(tb).Add(event.PromptAmended,
			event.PromptChangedPayload{MessageID: "m1", Content: []event.Block{{Type: "text", Text: "and fix it"}}})},
		{Name: "run started", Kind: event.RunStarted, Log: queued(tb).Add(event.RunStarted, event.RunStartedPayload{RunID: "m1"}),
			Want: []string{`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"find the bug"},"messageId":"ev-3.0","_meta":{"hydra-acp":{"acpMessageId":"m1","compatFor":"prompt_received"}}}`,
				`{"sessionUpdate":"user_message_chunk","content":{"type":"resource_link","uri":"file:///work/main.go"},"messageId":"ev-3.1","_meta":{"hydra-acp":{"acpMessageId":"m1","compatFor":"prompt_received"}}}`,
				`{"sessionUpdate":"prompt_received","messageId":"ev-3","prompt":[{"type":"text","text":"find the bug"},{"type":"resource_link","uri":"file:///work/main.go"}],"sentBy":{"clientId":"editor"},"_meta":{"hydra-acp":{"acpMessageId":"m1"}}}`},
		},
		{Name: "steer delivered", Kind: event.PromptDelivered, Log: running(tb).
			Add(event.PromptQueued, event.PromptQueuedPayload{MessageID: "m2", Delivery: "steer", Content: []event.Block{{Type: "text", Text: "hurry"}}}).
			Add(event.PromptDelivered, event.PromptDeliveredPayload{MessageID: "m2", RunID: "m1", Delivery: "steer"}),
			Want: []string{`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hurry"},"messageId":"ev-6","_meta":{"hydra-acp":{"acpMessageId":"m2"}}}`}},
		{Name: "step started", Kind: event.StepStarted, Log: running(tb)},
		{Name: "text delta", Kind: event.MessageDelta, Log: running(tb).Deltas("m1", "a1", event.ChannelText, "Looking"),
			Want: []string{`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Looking"},"messageId":"ev-5","_meta":{"hydra-acp":{"acpMessageId":"a1"}}}`}},
		{Name: "thinking delta", Kind: event.MessageDelta, Log: running(tb).Deltas("m1", "a1", event.ChannelThinking, "hmm"),
			Want: []string{`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"},"messageId":"ev-5","_meta":{"hydra-acp":{"acpMessageId":"a1"}}}`}},
		{Name: "call announced", Kind: event.MessageDelta, Log: running(tb).CallDeltas("m1", "a1", "c1", "grep"),
			Want: []string{`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"grep","kind":"search","status":"pending","messageId":"ev-5"}`}},
		{Name: "call arguments", Kind: event.MessageDelta, Log: running(tb).CallDeltas("m1", "a1", "c1", "grep", `{"pattern":`)},
		{Name: "message completed", Kind: event.MessageCompleted, Log: running(tb).Deltas("m1", "a1", event.ChannelText, "Done.").
			Add(event.MessageCompleted, event.MessageCompletedPayload{RunID: "m1", MessageID: "a1", Text: "Done."})},
		{Name: "tool started", Kind: event.ToolStarted, Log: calling(tb),
			Want: []string{`{"sessionUpdate":"tool_call_update",` + grepPending + `,"messageId":"ev-8"}`}},
		{Name: "tool started unannounced", Kind: event.ToolStarted, Log: running(tb).
			Add(event.ToolStarted, event.ToolStartedPayload{RunID: "m1", ToolCallID: "c2", Name: "bash", Category: "exec",
				Arguments: `{"command":"go test"}`, Origin: "native", MessageID: "a1"}),
			Want: []string{`{"sessionUpdate":"tool_call","toolCallId":"c2","title":"bash","kind":"execute","status":"in_progress","rawInput":{"command":"go test"},"messageId":"ev-5"}`}},
		{Name: "permission requested", Kind: event.ToolPermissionRequested, Log: calling(tb).Add(event.ToolPermissionRequested,
			event.PermissionRequestedPayload{RunID: "m1", ToolCallID: "c1", Name: "grep", Category: "info", Arguments: `{"pattern":"TODO"}`})},
		{Name: "permission resolved", Kind: event.ToolPermissionResolved, Log: allowed(tb),
			Want: []string{`{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"grep","kind":"search","status":"in_progress","rawInput":{"pattern":"TODO"},"messageId":"ev-10.0"}`,
				`{"sessionUpdate":"permission_resolved","toolCallId":"c1","outcome":"allowed","chosenOptionId":"allow","optionId":"allow","resolvedBy":"editor","messageId":"ev-10"}`}},
		{Name: "tool progress", Kind: event.ToolProgress, Log: allowed(tb).
			Add(event.ToolProgress, event.ToolProgressPayload{RunID: "m1", ToolCallID: "c1", Output: "main.go:3"}),
			Want: []string{`{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"grep","kind":"search","status":"in_progress","rawInput":{"pattern":"TODO"},"content":[{"type":"content","content":{"type":"text","text":"main.go:3"}}],"messageId":"ev-11"}`}},
		{Name: "tool process", Kind: event.ToolProcess, Log: allowed(tb).
			Add(event.ToolProcess, event.ToolProcessPayload{RunID: "m1", ToolCallID: "c1", Pgid: 4242})},
		{Name: "tool completed", Kind: event.ToolCompleted, Log: allowed(tb).
			Add(event.ToolCompleted, event.ToolCompletedPayload{RunID: "m1", ToolCallID: "c1", Name: "grep", Status: "success", Output: "main.go:3: TODO", DurationMS: 12}),
			Want: []string{`{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"grep","kind":"search","status":"completed","rawInput":{"pattern":"TODO"},"content":[{"type":"content","content":{"type":"text","text":"main.go:3: TODO"}}],"messageId":"ev-11"}`}},
		{Name: "tool failed", Kind: event.ToolCompleted, Log: allowed(tb).
			Add(event.ToolCompleted, event.ToolCompletedPayload{RunID: "m1", ToolCallID: "c1", Name: "grep", Status: "error", Output: "bad pattern"}),
			Want: []string{`{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"grep","kind":"search","status":"failed","rawInput":{"pattern":"TODO"},"content":[{"type":"content","content":{"type":"text","text":"bad pattern"}}],"messageId":"ev-11"}`}},
		{Name: "step ended", Kind: event.StepEnded, Log: running(tb).
			Add(event.StepEnded, event.StepEndedPayload{RunID: "m1", Step: 1, MessageID: "a1", FinishReason: "stop",
				Usage: event.Usage{Input: 100, Output: 20, CacheRead: 5, Cost: 0.25}}),
			Want: []string{`{"sessionUpdate":"usage_update","used":125,"size":8192,"cost":{"amount":0.25,"currency":"USD"},"tokenUsage":{"prompt":100,"completion":20,"cacheRead":5,"cacheWrite":0}}`}},
		{Name: "retry started", Kind: event.RetryStarted, Log: running(tb).
			Add(event.RetryStarted, event.RetryPayload{RunID: "m1", Attempt: 1, MaxAttempts: 3, DelayMS: 100, Error: "overloaded"}),
			Want: []string{`{"sessionUpdate":"troupe_retry","phase":"started","attempt":1,"retries":2,"delayMs":100,"error":"overloaded"}`}},
		{Name: "retry ended", Kind: event.RetryEnded, Log: running(tb).
			Add(event.RetryStarted, event.RetryPayload{RunID: "m1", Attempt: 1, MaxAttempts: 3, Error: "overloaded"}).
			Add(event.RetryEnded, event.RetryPayload{RunID: "m1", Attempt: 2, MaxAttempts: 3, Success: true}),
			Want: []string{`{"sessionUpdate":"troupe_retry","phase":"recovered","attempt":1,"retries":2}`}},
		{Name: "retries spent", Kind: event.RetryEnded, Log: running(tb).
			Add(event.RetryStarted, event.RetryPayload{RunID: "m1", Attempt: 1, MaxAttempts: 2, Error: "overloaded"}).
			Add(event.RetryEnded, event.RetryPayload{RunID: "m1", Attempt: 2, MaxAttempts: 2, Error: "overloaded"}),
			Want: []string{`{"sessionUpdate":"troupe_retry","phase":"failed","attempt":1,"retries":1,"error":"overloaded"}`}},
		{Name: "run ended", Kind: event.RunEnded, Log: running(tb).Add(event.RunEnded, event.RunEndedPayload{RunID: "m1", StopReason: "end_turn"}),
			Want: []string{`{"sessionUpdate":"turn_complete","stopReason":"end_turn","messageId":"ev-5","_meta":{"hydra-acp":{"acpMessageId":"m1"}}}`}},
		{Name: "run failed", Kind: event.RunEnded, Log: running(tb).Add(event.RunEnded, event.RunEndedPayload{RunID: "m1", StopReason: "error", Error: "boom"}),
			Want: []string{`{"sessionUpdate":"turn_complete","stopReason":"end_turn","messageId":"ev-5","_meta":{"hydra-acp":{"acpMessageId":"m1"}}}`}},
		{Name: "run interrupted", Kind: event.RunInterrupted, Log: running(tb).Add(event.RunInterrupted, event.RunInterruptedPayload{RunID: "m1"})},
		{Name: "compaction started", Kind: event.CompactionStarted, Log: created(tb).Add(event.CompactionStarted, event.CompactionPayload{}),
			Want: []string{`{"sessionUpdate":"hydra_compaction","phase":"started","requestedAt":` + milliAt(2) + `}`}},
		{Name: "compaction ended", Kind: event.CompactionEnded, Log: created(tb).Add(event.CompactionStarted, event.CompactionPayload{}).
			Add(event.CompactionEnded, event.CompactionPayload{Summary: "earlier work"}),
			Want: []string{`{"sessionUpdate":"hydra_compaction","phase":"swapped","title":"a test"}`}},
		{Name: "compaction failed", Kind: event.CompactionEnded, Log: created(tb).Add(event.CompactionStarted, event.CompactionPayload{}).
			Add(event.CompactionEnded, event.CompactionPayload{Aborted: true}),
			Want: []string{`{"sessionUpdate":"hydra_compaction","phase":"failed","error":"aborted"}`}},
		{Name: "bash executed", Kind: event.BashExecuted, Log: created(tb).Add(event.BashExecuted, event.BashExecutedPayload{Command: "ls", Output: "main.go"})},
		{Name: "history imported", Kind: event.HistoryImported, Log: created(tb).Add(event.HistoryImported, event.HistoryImportedPayload{Source: "bundle",
			Messages: []event.HistoryMessage{{Role: "user", Content: "hello"}, {Role: "assistant", Content: "hi there"}, {Role: "tool", Content: "ignored"}}}),
			Want: []string{`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hello"},"messageId":"ev-2.0"}`,
				`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi there"},"messageId":"ev-2"}`}},
		{Name: "attention changed", Kind: event.AttentionChanged, Log: created(tb).Add(event.AttentionChanged, event.AttentionPayload{Flags: []string{"unread"}})},
		{Name: "mcp status", Kind: event.MCPStatus, Log: created(tb).Add(event.MCPStatus, event.MCPStatusPayload{Server: "docs", Status: "failed", Error: "refused"})},
		{Name: "transformer attached", Kind: event.TransformerAttached, Log: created(tb).Add(event.TransformerAttached, event.TransformerAttachedPayload{Name: "planner"})},
		{Name: "plan updated", Kind: event.PlanUpdated, Log: running(tb).Add(event.PlanUpdated, event.PlanPayload{RunID: "m1",
			Entries: []event.PlanEntry{{Content: "read", Priority: "high", Status: "completed"}, {Content: "write", Priority: "medium", Status: "pending"}}}),
			Want: []string{`{"sessionUpdate":"plan","entries":[{"content":"read","priority":"high","status":"completed"},{"content":"write","priority":"medium","status":"pending"}],"messageId":"ev-5"}`}},
		{Name: "update transformed", Kind: event.UpdateTransformed, Log: running(tb).Deltas("m1", "a1", event.ChannelText, "secret").
			Add(event.UpdateTransformed, event.UpdateTransformedPayload{Seq: 5, Dropped: true})},
	}
}

// Models is a catalog of one model, openai/tiny, with a window of 8192.
type Models struct{}

var tiny = sessions.Model{Provider: "openai", ID: "tiny", Name: "Tiny", ContextWindow: 8192}

func (Models) Default() (string, string) { return "openai", "tiny" }
func (Models) Model(provider, id string) (sessions.Model, error) {
	if provider != tiny.Provider || id != tiny.ID {
		return sessions.Model{}, errors.New("unknown model " + provider + "/" + id)
	}
	return tiny, nil
}
func (Models) List() []sessions.Model                             { return []sessions.Model{tiny} }
func (Models) ClampThinking(string, string, string) string        { return "off" }
func (Models) NextThinking(string, string, string) (string, bool) { return "", false }
func (Models) Cost(string, string, event.Usage) (sessions.Cost, error) {
	return sessions.Cost{}, nil
}
