package run

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions/internal/queue"
	"github.com/troupehq/troupe/actors/sessions/internal/toolcall"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/conversation"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/runtime/tools"
)

// SkippedOutput is what the model is told of calls skipped for a steer.
const SkippedOutput = "Skipped due to queued user message."

type phase int

const (
	phaseIdle phase = iota
	phaseResolving
	phaseStreaming
	phaseRetryWait
	phaseTools
	phaseApproval
	phaseSteerCheck
	phaseFollowUpCheck
	phaseCompacting
	phaseEnded
)

type call struct {
	id, name, args, origin string
	tool                   tools.Tool
	category               string
	parseErr               string
	toolErr                string // the tool panicked before it could run
	started                bool   // tool.started was written
	answered               bool   // tool.completed was written
	approval               approvalState
	denial                 string    // what the model is told of a denied call
	asked                  time.Time // its permission request went out (for the wait's metric)
}

type approvalState int

const (
	approvalNone approvalState = iota
	approvalPending
	approvalAllowed
	approvalDenied
)

type run struct {
	cfg   Config
	tools []tools.Tool // this step's: cfg.Tools and ExtraTools as the step began
	log   *slog.Logger
	conv  *conversation.Conversation
	phase phase

	step           int
	msgID          string
	attempt        int
	finalRequested bool
	cancelStream   context.CancelFunc
	usage          event.Usage

	calls   []call
	callIdx int
	// (the step's calls track their own tool.started and tool.completed)
	// tool.completed; both go in call order.
	running *actor.PID
	policy  Policy

	modelStale   bool // the session's model settings changed: resolve before the next step
	cancelled    bool
	cancelReason string
	errKind      string // of the error that ends the run
	errRetryable bool
	finish       llm.FinishReason
	retryOpen    bool // retry.started was emitted and its retry.ended not yet

	// compaction
	lastContext        int // prompt+completion tokens of the last step
	lastContextLen     int // messages the last step's prompt covered
	afterCompact       afterCompaction
	compactReason      string
	compacted          bool // this step already compacted
	overflowCompacted  bool
	pendingInstruction string
}

func (t *run) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		t.log = actorlog.For(ctx, "session", t.cfg.SessionID, "run", t.cfg.RunID)
		t.conv = t.cfg.Conversation.Clone()
		t.step = t.cfg.StartStep
		t.policy = t.cfg.Policy
		t.refreshTools()
		if t.policy.Allowed == nil {
			t.policy.Allowed = map[string]bool{}
		}
		t.phase = phaseResolving
		t.resolve(ctx)
	case *resolved:
		t.onResolved(ctx, m)
	case *compactionDone:
		t.onCompactionDone(ctx, m)
	case *streamDone:
		t.onStreamDone(ctx, m)
	case *retryNow:
		if t.phase == phaseRetryWait && m.attempt == t.attempt && !t.cancelled {
			t.startStream(ctx)
		}
	case *AbortRetry:
		if t.phase == phaseRetryWait {
			t.emit(ctx, event.RetryEnded, event.RetryPayload{RunID: t.cfg.RunID, Attempt: t.attempt, MaxAttempts: t.cfg.Retry.MaxAttempts, Error: "retry aborted"})
			t.end(ctx, event.StopError, "retry aborted")
		}
	case *toolcall.Progress:
		t.emit(ctx, event.ToolProgress, event.ToolProgressPayload{RunID: t.cfg.RunID, ToolCallID: m.ToolCallID, Output: m.Output})
	case *toolcall.Process:
		t.emit(ctx, event.ToolProcess, event.ToolProcessPayload{RunID: t.cfg.RunID, ToolCallID: m.ToolCallID,
			Pgid: m.Proof.PID, Start: m.Proof.Start, Boot: m.Proof.Boot})
	case *toolcall.Done:
		t.onToolDone(ctx, m)
	case *actor.Terminated:
		t.onTerminated(ctx, m.Who)
	case *Decide:
		ctx.Respond(&DecideResult{Err: t.decide(ctx, m)})
	case *queue.Messages:
		t.onMessages(ctx, m)
	case *Reconfigure:
		t.reconfigure(m)
	case *SetMode:
		t.policy.Mode = m.Mode
		if t.phase != phaseEnded {
			t.reviewPending(ctx, event.ResolvedByMode)
		}
	case *Cancel:
		t.cancel(ctx, m.Reason)
	case *actor.Stopping:
		if t.cancelStream != nil {
			t.cancelStream()
		}
	default:
		actorlog.Unhandled(t.log, ctx)
	}
}

// emit sends one event to the session and folds it into the run's own
// conversation, so the run's view is exactly what a replay would rebuild.
func (t *run) emit(ctx actor.Context, kind event.Kind, payload any) {
	d, err := event.NewDraft(kind, payload)
	if err != nil {
		t.log.Error("event not emitted", "kind", kind, "error", err)
		return
	}
	ctx.Send(t.cfg.Session, &Emit{RunID: t.cfg.RunID, Token: t.cfg.Token, Events: []event.Draft{d}})
	switch kind {
	case event.RetryStarted:
		t.retryOpen = true
	case event.RetryEnded:
		t.retryOpen = false
	}
	if err := t.conv.Apply(event.Event{Kind: kind, Payload: d.Payload}); err != nil {
		t.log.Error("fold own event", "kind", kind, "error", err)
	}
}

// nextStep starts one LLM call. Past MaxSteps the model is asked once,
// without tools, for its final answer.
func (t *run) nextStep(ctx actor.Context, instruction string) {
	if t.modelStale {
		t.resolveAgain(ctx, instruction)
		return
	}
	if !t.compacted && t.needsCompaction() {
		t.pendingInstruction = instruction
		if t.startCompaction(ctx, event.CompactionThreshold, "", thenStep) {
			return
		}
	}
	t.compacted = false
	if t.step >= t.cfg.MaxSteps {
		if t.finalRequested {
			t.end(ctx, event.StopMaxTurnRequests, "")
			return
		}
		t.finalRequested = true
		instruction = finalAnswerRequest
	}
	t.step++
	t.msgID = t.cfg.NewID("msg")
	t.attempt = 1
	t.calls, t.callIdx = nil, 0
	t.emit(ctx, event.StepStarted, event.StepStartedPayload{
		RunID: t.cfg.RunID, Step: t.step, MaxSteps: t.cfg.MaxSteps, MessageCount: t.conv.Len(),
		MessageID: t.msgID, ToolStyle: t.cfg.ToolStyle, Instruction: instruction,
	})
	t.startStream(ctx)
}

func (t *run) end(ctx actor.Context, stop, errMsg string) {
	if t.phase == phaseEnded {
		return
	}
	t.phase = phaseEnded
	t.closeCalls(ctx)
	if t.retryOpen {
		// A cancel during a retry's wait or its attempt ends the retry too.
		why := errMsg
		if why == "" {
			why = stop
		}
		t.emit(ctx, event.RetryEnded, event.RetryPayload{RunID: t.cfg.RunID, Attempt: t.attempt, MaxAttempts: t.cfg.Retry.MaxAttempts, Error: why})
	}
	if !t.cfg.CompactOnly {
		t.emit(ctx, event.RunEnded, event.RunEndedPayload{RunID: t.cfg.RunID, StopReason: stop, Usage: t.usage, Error: errMsg,
			ErrorKind: t.errKind, Retryable: t.errRetryable})
	}
	ctx.Send(t.cfg.Session, &Finished{RunID: t.cfg.RunID, Token: t.cfg.Token, StopReason: stop})
}

// cancelledOutput is what the model is told of calls a cancel cut short or
// kept from running.
const cancelledOutput = "Tool call cancelled: the run was aborted."

// closeCalls answers every call of the step that has no result yet, so the
// history never holds a tool call without its result (servers reject it).
func (t *run) closeCalls(ctx actor.Context) {
	for i := range t.calls {
		t.closeCall(ctx, &t.calls[i], event.ToolCancelled, cancelledOutput)
	}
}

func (t *run) cancel(ctx actor.Context, reason string) {
	if t.cancelled || t.phase == phaseEnded {
		return
	}
	t.cancelled, t.cancelReason = true, reason
	switch t.phase {
	case phaseStreaming, phaseCompacting:
		t.cancelStream() // streamDone or compactionDone follows and ends the run
	case phaseResolving:
		if t.cancelStream != nil {
			t.cancelStream() // resolved follows and ends the run
			return
		}
		t.end(ctx, event.StopCancelled, reason)
	case phaseTools:
		if t.running != nil {
			ctx.Send(t.running, &toolcall.Cancel{}) // Done follows
			return
		}
		t.end(ctx, event.StopCancelled, reason)
	case phaseApproval:
		t.end(ctx, event.StopCancelled, reason) // closeCalls resolves the pending requests
	default:
		t.end(ctx, event.StopCancelled, reason)
	}
}

func (t *run) onMessages(ctx actor.Context, m *queue.Messages) {
	if t.cancelled || t.phase == phaseEnded {
		if len(m.IDs) > 0 && t.cfg.Queue != nil {
			ctx.Send(t.cfg.Queue, &queue.Returned{Messages: *m})
		}
		return
	}
	steering := t.phase == phaseSteerCheck
	if len(m.IDs) == 0 {
		if steering {
			t.runNextCall(ctx)
			return
		}
		t.end(ctx, t.naturalStop(), "")
		return
	}
	if steering {
		for i := t.callIdx; i < len(t.calls); i++ {
			t.closeCall(ctx, &t.calls[i], event.ToolSkipped, SkippedOutput)
		}
		t.callIdx = len(t.calls)
	}
	for i, id := range m.IDs {
		// The run's copy of the history has not seen this prompt queued.
		t.fold(ctx, event.PromptQueued, event.PromptQueuedPayload{MessageID: id, Content: m.Contents[i], Delivery: m.Delivery})
		t.emit(ctx, event.PromptDelivered, event.PromptDeliveredPayload{MessageID: id, RunID: t.cfg.RunID, Delivery: m.Delivery})
	}
	t.nextStep(ctx, "")
}

// fold applies an event to the run's conversation without emitting it.
func (t *run) fold(ctx actor.Context, kind event.Kind, payload any) {
	b, err := json.Marshal(payload)
	if err == nil {
		err = t.conv.Apply(event.Event{Kind: kind, Payload: b})
	}
	if err != nil {
		t.log.Error("fold", "kind", kind, "error", err)
	}
}

func (t *run) naturalStop() string {
	switch t.finish {
	case llm.FinishLength:
		return event.StopMaxTokens
	case llm.FinishContentFilter:
		return event.StopRefusal
	}
	return event.StopEndTurn
}

func (t *run) askQueue(ctx actor.Context, steer bool) {
	if steer {
		t.phase = phaseSteerCheck
	} else {
		t.phase = phaseFollowUpCheck
	}
	if t.cfg.Queue == nil {
		ctx.Send(ctx.Self(), &queue.Messages{})
		return
	}
	ctx.Request(t.cfg.Queue, &queue.TakeMessages{RunID: t.cfg.RunID, Steer: steer})
}

func toolNames(ts []tools.Tool) string {
	names := make([]string, len(ts))
	for i, tl := range ts {
		names[i] = tl.Name()
	}
	return strings.Join(names, ", ")
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprint(err)
}
