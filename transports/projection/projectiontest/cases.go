package projectiontest

import (
	"strings"
	"testing"

	"github.com/troupehq/troupe/persistence/event"
)

// Case is one log every protocol's projector is tested on.
type Case struct {
	Name  string
	About string
	Log   *Log
	// Resumed is the last seq a process showed before it was killed (0:
	// none). A projector started after the crash shows what follows, with
	// what came before as history.
	Resumed int64
}

// Cases are the logs, each modelled on one the engine wrote.
func Cases(tb testing.TB) []Case {
	return []Case{
		MultiTool(tb), Crashed(tb), CrashedMidStream(tb), Cancelled(tb), Compaction(tb), Steer(tb), Retries(tb),
	}
}

// Interrupted is what recovery tells the model of a call a crash cut off
// (actors/sessions/internal/session.InterruptedOutput).
const Interrupted = "Interrupted: troupe restarted while this tool call was running. " +
	"It did not finish, and it was not run again; check its effects before relying on them."

func created(tb testing.TB, mode string) *Log {
	provider, model := "openai", "tiny"
	set := event.Settings{Provider: &provider, Model: &model}
	if mode != "" {
		set.ApprovalMode = &mode
	}
	return NewLog(tb, "s1").Add(event.SessionCreated, event.CreatedPayload{Cwd: "/work", Title: "a test", Settings: set, OriginTransport: "test"})
}

func step(l *Log, run string, n, count int, msg string) *Log {
	return l.Add(event.StepStarted, event.StepStartedPayload{RunID: run, Step: n, MaxSteps: 50, MessageCount: count, MessageID: msg, ToolStyle: "native"})
}

// reply is a step that streams text and stops.
func reply(l *Log, run string, n, count int, msg string, in, out int64, pieces ...string) *Log {
	step(l, run, n, count, msg).Deltas(run, msg, event.ChannelText, pieces...).
		Add(event.MessageCompleted, event.MessageCompletedPayload{RunID: run, MessageID: msg, Text: strings.Join(pieces, "")})
	return stepEnded(l, run, n, msg, "stop", in, out)
}

func stepEnded(l *Log, run string, n int, msg, finish string, in, out int64) *Log {
	return l.Add(event.StepEnded, event.StepEndedPayload{RunID: run, Step: n, MessageID: msg, FinishReason: finish, Usage: event.Usage{Input: in, Output: out}})
}

func toolStarted(l *Log, run, id, name, category, args, msg string, awaiting bool) *Log {
	return l.Add(event.ToolStarted, event.ToolStartedPayload{RunID: run, ToolCallID: id, Name: name, Category: category, Arguments: args,
		Origin: "native", MessageID: msg, AwaitingApproval: awaiting})
}

func toolDone(l *Log, run, id, name, status, out string) *Log {
	return l.Add(event.ToolCompleted, event.ToolCompletedPayload{RunID: run, ToolCallID: id, Name: name, Status: status, Output: out})
}

func runEnded(l *Log, run, stop string, in, out int64, errMsg string) *Log {
	return l.Add(event.RunEnded, event.RunEndedPayload{RunID: run, StopReason: stop, Usage: event.Usage{Input: in, Output: out}, Error: errMsg})
}

const (
	bashArgs = `{"command":"echo one > a.txt; cat a.txt"}`
	readArgs = `{"path":"a.txt"}`
)

// MultiTool is a normal run: a step streaming text and two tool calls,
// both run (the first with progress), then a step thinking and answering.
func MultiTool(tb testing.TB) Case {
	l := created(tb, "yolo").Prompt("m1", "write and read a file")
	step(l, "m1", 1, 1, "a1").
		Deltas("m1", "a1", event.ChannelText, "Let me ", "look.").
		CallDeltas("m1", "a1", "c1", "bash", `{"command":`, `"echo one > a.txt; cat a.txt"}`).
		CallDeltas("m1", "a1", "c2", "read", readArgs).
		Add(event.MessageCompleted, event.MessageCompletedPayload{RunID: "m1", MessageID: "a1", Text: "Let me look.",
			ToolCalls: []event.ToolCall{{ID: "c1", Name: "bash", Arguments: bashArgs}, {ID: "c2", Name: "read", Arguments: readArgs}}})
	stepEnded(l, "m1", 1, "a1", "tool_calls", 20, 8)
	toolStarted(l, "m1", "c1", "bash", "exec", bashArgs, "a1", false).
		Add(event.ToolProcess, event.ToolProcessPayload{RunID: "m1", ToolCallID: "c1", Pgid: 4242}).
		Add(event.ToolProgress, event.ToolProgressPayload{RunID: "m1", ToolCallID: "c1", Output: "one\n"}).
		Add(event.ToolCompleted, event.ToolCompletedPayload{RunID: "m1", ToolCallID: "c1", Name: "bash", Status: "success",
			Output: "one\n\n[exit code: 0]", OutputType: "text", Metadata: map[string]string{"exit_code": "0"}, DurationMS: 6})
	toolStarted(l, "m1", "c2", "read", "info", readArgs, "a1", false)
	toolDone(l, "m1", "c2", "read", "success", "one")
	step(l, "m1", 2, 4, "a2").
		Deltas("m1", "a2", event.ChannelThinking, "Both ", "worked.").
		Deltas("m1", "a2", event.ChannelText, "Done: ", "one").
		Add(event.MessageCompleted, event.MessageCompletedPayload{RunID: "m1", MessageID: "a2", Text: "Done: one", Thinking: "Both worked."})
	stepEnded(l, "m1", 2, "a2", "stop", 40, 4)
	runEnded(l, "m1", "end_turn", 60, 12, "")
	return Case{Name: "multi_tool", About: "a run of two steps and two tool calls", Log: l}
}

// Crashed is a run whose process was killed while its second tool call
// ran: recovery reports the call interrupted and resumes the run.
func Crashed(tb testing.TB) Case {
	l := created(tb, "yolo").Prompt("m1", "two steps please")
	step(l, "m1", 1, 1, "a1").
		Deltas("m1", "a1", event.ChannelText, "Step one.").
		CallDeltas("m1", "a1", "c1", "bash", `{"command":"echo first"}`).
		CallDeltas("m1", "a1", "c2", "bash", `{"command":"sleep 60"}`).
		Add(event.MessageCompleted, event.MessageCompletedPayload{RunID: "m1", MessageID: "a1", Text: "Step one.",
			ToolCalls: []event.ToolCall{{ID: "c1", Name: "bash", Arguments: `{"command":"echo first"}`}, {ID: "c2", Name: "bash", Arguments: `{"command":"sleep 60"}`}}})
	stepEnded(l, "m1", 1, "a1", "tool_calls", 20, 8)
	toolStarted(l, "m1", "c1", "bash", "exec", `{"command":"echo first"}`, "a1", false)
	toolDone(l, "m1", "c1", "bash", "success", "first\n\n[exit code: 0]")
	toolStarted(l, "m1", "c2", "bash", "exec", `{"command":"sleep 60"}`, "a1", false).
		Add(event.ToolProcess, event.ToolProcessPayload{RunID: "m1", ToolCallID: "c2", Pgid: 4343})
	crash := l.Seq()
	toolDone(l, "m1", "c2", "bash", "interrupted", Interrupted).
		Add(event.RunInterrupted, event.RunInterruptedPayload{RunID: "m1", ToolCallIDs: []string{"c2"}, Policy: "resume"})
	reply(l, "m1", 2, 5, "a2", 30, 4, "Recovered ", "and done.")
	runEnded(l, "m1", "end_turn", 50, 12, "")
	return Case{Name: "crashed", About: "a run cut by a crash during a tool call, resumed", Log: l, Resumed: crash}
}

// CrashedMidStream is a run whose process was killed while the model
// streamed, under crash policy stop: recovery closes the step with what
// streamed and ends the run; the next prompt runs as usual.
func CrashedMidStream(tb testing.TB) Case {
	l := created(tb, "yolo").Prompt("m1", "tell me a story")
	step(l, "m1", 1, 1, "a1").
		Deltas("m1", "a1", event.ChannelThinking, "A story.").
		Deltas("m1", "a1", event.ChannelText, "Once upon", " a time")
	crash := l.Seq()
	l.Add(event.MessageCompleted, event.MessageCompletedPayload{RunID: "m1", MessageID: "a1", Text: "Once upon a time", Thinking: "A story."})
	stepEnded(l, "m1", 1, "a1", "interrupted", 0, 0).
		Add(event.RunInterrupted, event.RunInterruptedPayload{RunID: "m1", Policy: "stop"})
	runEnded(l, "m1", "cancelled", 0, 0, "interrupted by a restart of troupe")
	l.Prompt("m2", "again")
	reply(l, "m2", 1, 3, "a2", 12, 3, "The end.")
	runEnded(l, "m2", "end_turn", 12, 3, "")
	return Case{Name: "crashed_mid_stream", About: "a run cut by a crash while streaming, stopped", Log: l, Resumed: crash}
}

// Cancelled is a run aborted with two tool calls open: one running (with
// progress), one waiting for approval.
func Cancelled(tb testing.TB) Case {
	l := created(tb, "default").Prompt("m1", "tidy up")
	const rm = `{"command":"rm -rf build"}`
	const notes = `{"path":"notes.txt"}`
	step(l, "m1", 1, 1, "a1").
		Deltas("m1", "a1", event.ChannelText, "Cleaning.").
		CallDeltas("m1", "a1", "c1", "read", notes).
		CallDeltas("m1", "a1", "c2", "bash", `{"command":`, `"rm -rf build"}`).
		Add(event.MessageCompleted, event.MessageCompletedPayload{RunID: "m1", MessageID: "a1", Text: "Cleaning.",
			ToolCalls: []event.ToolCall{{ID: "c1", Name: "read", Arguments: notes}, {ID: "c2", Name: "bash", Arguments: rm}}})
	stepEnded(l, "m1", 1, "a1", "tool_calls", 30, 9)
	toolStarted(l, "m1", "c2", "bash", "exec", rm, "a1", true).
		Add(event.ToolPermissionRequested, event.PermissionRequestedPayload{RunID: "m1", ToolCallID: "c2", Name: "bash", Category: "exec", Arguments: rm,
			Options: []event.PermissionOption{{OptionID: "allow_once", Name: "Allow once", Kind: "allow_once"}, {OptionID: "reject_once", Name: "Reject", Kind: "reject_once"}}})
	toolStarted(l, "m1", "c1", "read", "info", notes, "a1", false).
		Add(event.ToolProgress, event.ToolProgressPayload{RunID: "m1", ToolCallID: "c1", Output: "line 1"})
	toolDone(l, "m1", "c1", "read", "cancelled", "Tool call cancelled.").
		Add(event.ToolPermissionResolved, event.PermissionResolvedPayload{RunID: "m1", ToolCallID: "c2", Outcome: "cancelled", Reason: "aborted"})
	toolDone(l, "m1", "c2", "bash", "cancelled", "Tool call cancelled: the run was aborted.")
	runEnded(l, "m1", "cancelled", 30, 9, "aborted")
	return Case{Name: "cancelled", About: "a run aborted with a call running and one awaiting approval", Log: l}
}

// Compaction is an automatic compaction before a run's step, then a manual
// one between runs, then one that fails.
func Compaction(tb testing.TB) Case {
	l := created(tb, "yolo").Prompt("m1", "first question")
	reply(l, "m1", 1, 1, "a1", 100, 3, "Answer one.")
	runEnded(l, "m1", "end_turn", 100, 3, "")
	l.Prompt("m2", "second question").
		Add(event.CompactionStarted, event.CompactionPayload{Reason: "threshold", TokensBefore: 25530}).
		Add(event.CompactionEnded, event.CompactionPayload{Reason: "threshold", Summary: "They asked one question.", FirstKeptEntryID: "m2", TokensBefore: 25530})
	reply(l, "m2", 1, 2, "a2", 40, 3, "Answer two.")
	runEnded(l, "m2", "end_turn", 40, 3, "")
	mode, title := "auto_edit", "renamed"
	l.Add(event.SessionSettingsChanged, event.Settings{ApprovalMode: &mode, Title: &title}).
		Add(event.CompactionStarted, event.CompactionPayload{Reason: "manual", Instructions: "keep it short"}).
		Add(event.CompactionEnded, event.CompactionPayload{Reason: "manual", Summary: "Two questions.", FirstKeptEntryID: "a2", TokensBefore: 120})
	l.Prompt("m3", "third question").
		Add(event.CompactionStarted, event.CompactionPayload{Reason: "overflow", TokensBefore: 130000}).
		Add(event.CompactionEnded, event.CompactionPayload{Reason: "overflow", TokensBefore: 130000, Error: "summary request failed: 500"})
	runEnded(l, "m3", "error", 0, 0, "context overflow")
	return Case{Name: "compaction", About: "automatic, manual and failed compactions", Log: l}
}

// Steer is a run a steer message joins at a tool boundary: the step's
// remaining call is skipped (in a log from before every skipped call got
// its tool.started) and the next step sees the message.
func Steer(tb testing.TB) Case {
	l := created(tb, "yolo").Prompt("m1", "look around")
	step(l, "m1", 1, 1, "a1").
		Deltas("m1", "a1", event.ChannelText, "Listing.").
		Add(event.MessageCompleted, event.MessageCompletedPayload{RunID: "m1", MessageID: "a1", Text: "Listing.",
			ToolCalls: []event.ToolCall{{ID: "c1", Name: "ls", Arguments: `{"path":"."}`}, {ID: "c2", Name: "read", Arguments: readArgs}}})
	stepEnded(l, "m1", 1, "a1", "tool_calls", 10, 5)
	toolStarted(l, "m1", "c1", "ls", "info", `{"path":"."}`, "a1", false)
	toolDone(l, "m1", "c1", "ls", "success", "a.txt\nb.txt").
		Add(event.PromptQueued, event.PromptQueuedPayload{MessageID: "m2", Content: []event.Block{{Type: "text", Text: "read b.txt instead"}}, Delivery: "steer", Client: "test"}).
		Add(event.PromptQueued, event.PromptQueuedPayload{MessageID: "m3", Content: []event.Block{{Type: "text", Text: "then stop"}}, Delivery: "follow_up", Client: "test"}).
		Add(event.PromptQueued, event.PromptQueuedPayload{MessageID: "m4", Content: []event.Block{{Type: "text", Text: "never mind"}}, Delivery: "follow_up", Client: "test"}).
		Add(event.PromptCancelled, event.PromptChangedPayload{MessageID: "m4", Reason: "cancelled by the client"})
	toolDone(l, "m1", "c2", "read", "skipped", "Skipped due to queued user message.").
		Add(event.PromptDelivered, event.PromptDeliveredPayload{MessageID: "m2", RunID: "m1", Delivery: "steer"})
	reply(l, "m1", 2, 5, "a2", 20, 4, "Reading b.txt.").
		Add(event.PromptDelivered, event.PromptDeliveredPayload{MessageID: "m3", RunID: "m1", Delivery: "follow_up"})
	reply(l, "m1", 3, 7, "a3", 30, 2, "Stopped.")
	runEnded(l, "m1", "end_turn", 60, 11, "")
	return Case{Name: "steer", About: "a steer and a follow-up join a run; a queued message is cancelled", Log: l}
}

// Retries is a run whose provider failed until the retries gave up, then a
// run that fails before its first LLM call.
func Retries(tb testing.TB) Case {
	const e503 = "provider returned 503 Service Unavailable"
	l := created(tb, "yolo").Prompt("m1", "hello")
	step(l, "m1", 1, 1, "a1").
		Add(event.RetryStarted, event.RetryPayload{RunID: "m1", Attempt: 1, MaxAttempts: 3, DelayMS: 500, Error: e503}).
		Add(event.RetryStarted, event.RetryPayload{RunID: "m1", Attempt: 2, MaxAttempts: 3, DelayMS: 1000, Error: e503}).
		Add(event.RetryEnded, event.RetryPayload{RunID: "m1", Attempt: 3, MaxAttempts: 3, Error: e503})
	stepEnded(l, "m1", 1, "a1", "", 0, 0).
		Add(event.RunEnded, event.RunEndedPayload{RunID: "m1", StopReason: "error", Error: e503, ErrorKind: "provider", Retryable: true})
	l.Prompt("m2", "again").
		Add(event.RunEnded, event.RunEndedPayload{RunID: "m2", StopReason: "error", Error: "no provider selected", ErrorKind: "config"})
	return Case{Name: "retries", About: "retries that give up, and a run that cannot resolve its model", Log: l}
}
