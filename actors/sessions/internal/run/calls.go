package run

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions/internal/toolcall"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/metrics"
	"github.com/troupehq/troupe/runtime/tools"
)

// permissionOptions are offered for every request (ACP's option kinds).
var permissionOptions = []event.PermissionOption{
	{OptionID: "allow_once", Name: "Allow once", Kind: "allow_once"},
	{OptionID: "allow_always", Name: "Always allow", Kind: "allow_always"},
	{OptionID: "reject_once", Name: "Reject", Kind: "reject_once"},
}

func (t *run) lookup(name string) tools.Tool {
	for _, tl := range t.tools {
		if strings.EqualFold(tl.Name(), name) {
			return tl
		}
	}
	return nil
}

func (t *run) toolCall(c call) tools.Call {
	call := tools.Call{Cwd: t.cfg.Cwd, AllowedDirs: t.cfg.AllowedDirs, Args: []byte(c.args), SpillDir: t.cfg.SpillDir}
	if t.cfg.Marker != nil {
		call.Marker = t.cfg.Marker(c.id)
	}
	return call
}

// prepareCalls looks at every call of the step before any runs: each that
// needs approval is announced now, so a client can decide them all, in any
// order, while the calls still run one at a time, in order.
func (t *run) prepareCalls(ctx actor.Context) {
	for i := range t.calls {
		c := &t.calls[i]
		c.tool = t.lookup(c.name)
		if c.tool == nil || c.parseErr != "" || !t.inspect(ctx, c) || c.toolErr != "" {
			continue
		}
		c.approval = approvalPending
		c.asked = time.Now()
		metrics.PermissionRequests.Inc()
		t.emitStarted(ctx, c, true)
		t.emit(ctx, event.ToolPermissionRequested, event.PermissionRequestedPayload{
			RunID: t.cfg.RunID, ToolCallID: c.id, Name: c.name, Category: c.category,
			Arguments: c.args, Options: permissionOptions,
		})
	}
	if !t.policy.DenyUnapproved {
		return
	}
	for i := range t.calls {
		if t.calls[i].approval == approvalPending {
			t.record(ctx, &t.calls[i], &Decide{ToolCallID: t.calls[i].id,
				Reason: "this session cannot ask for approval and its mode (" + t.policy.Mode + ") requires it", By: event.ResolvedByMode})
		}
	}
}

// runNextCall executes the step's calls one at a time, in order, so that a
// steer can skip the rest at each boundary.
func (t *run) runNextCall(ctx actor.Context) {
	t.phase = phaseTools
	if t.callIdx >= len(t.calls) {
		t.nextStep(ctx, "")
		return
	}
	c := &t.calls[t.callIdx]
	switch {
	case c.parseErr != "":
		t.failCall(ctx, c, "Error: "+c.parseErr)
	case c.tool == nil:
		t.failCall(ctx, c, fmt.Sprintf("Error: unknown tool %q; available tools: %s", c.name, toolNames(t.tools)))
	case c.toolErr != "":
		t.failCall(ctx, c, "Error: "+c.toolErr)
	case c.approval == approvalPending:
		t.phase = phaseApproval // decide() goes on
	case c.approval == approvalDenied:
		t.failCall(ctx, c, c.denial)
	default:
		t.emitStarted(ctx, c, false)
		t.spawnCall(ctx, *c)
	}
}

func (t *run) failCall(ctx actor.Context, c *call, out string) {
	t.emitStarted(ctx, c, false)
	t.completeCall(ctx, c, event.ToolError, out, tools.Result{}, 0)
	t.afterCall(ctx)
}

// inspect asks the tool for its category and the policy whether the call
// needs approval. Both run tool code (Category, Touches) on the run's
// mailbox, so a panic there fails this call instead of the run.
func (t *run) inspect(ctx actor.Context, c *call) (needs bool) {
	defer func() {
		if r := recover(); r != nil {
			t.log.Error("tool panicked", "tool", c.name, "tool_call", c.id, "reason", fmt.Sprint(r), "stack", string(debug.Stack()))
			c.toolErr = fmt.Sprintf("tool %s crashed: %v", c.name, r)
			needs = false
		}
	}()
	c.category = string(c.tool.Category())
	return t.policy.needsApproval(c.tool, t.toolCall(*c))
}

// emitStarted writes tool.started once per call.
func (t *run) emitStarted(ctx actor.Context, c *call, awaiting bool) {
	if c.started {
		return
	}
	c.started = true
	t.emit(ctx, event.ToolStarted, event.ToolStartedPayload{
		RunID: t.cfg.RunID, ToolCallID: c.id, Name: c.name, Category: c.category, Arguments: c.args,
		Origin: c.origin, MessageID: t.msgID, AwaitingApproval: awaiting,
	})
}

// decide applies a client's decision on any pending request of the step.
func (t *run) decide(ctx actor.Context, d *Decide) error {
	for i := t.callIdx; i < len(t.calls); i++ {
		c := &t.calls[i]
		if c.id != d.ToolCallID || c.approval != approvalPending || t.phase == phaseEnded {
			continue
		}
		t.record(ctx, c, d)
		if d.Allow && d.Always {
			t.allowAlways(ctx, c.category)
		}
		if t.phase == phaseApproval && i == t.callIdx {
			t.runNextCall(ctx)
		}
		return nil
	}
	return fmt.Errorf("no permission request pending for tool call %s", d.ToolCallID)
}

// record records a decision; the call runs (or fails) when its turn comes.
func (t *run) record(ctx actor.Context, c *call, d *Decide) {
	outcome := event.PermissionAllowed
	c.approval = approvalAllowed
	if !d.Allow {
		outcome, c.approval = event.PermissionDenied, approvalDenied
		c.denial = "Permission denied by the user."
		if d.Reason != "" {
			c.denial = "Permission denied: " + d.Reason
		}
	}
	observePermission(c, outcome)
	t.emit(ctx, event.ToolPermissionResolved, event.PermissionResolvedPayload{
		RunID: t.cfg.RunID, ToolCallID: c.id, Outcome: outcome, OptionID: d.OptionID, Reason: d.Reason, ResolvedBy: d.By,
	})
}

// allowAlways adds a category to the allow-list and lets the step's other
// pending calls of it through, unless they still need asking (a write
// outside the session's directories).
func (t *run) allowAlways(ctx actor.Context, category string) {
	t.policy.Allowed[category] = true
	ctx.Send(t.cfg.Session, &AllowCategory{Category: category})
	t.reviewPending(ctx, "allow_list")
}

// reviewPending allows the pending calls the current policy no longer asks
// about (after an allow-always, or a mode change).
func (t *run) reviewPending(ctx actor.Context, by string) {
	for i := t.callIdx; i < len(t.calls); i++ {
		c := &t.calls[i]
		if c.approval == approvalPending && !t.policy.needsApproval(c.tool, t.toolCall(*c)) {
			t.record(ctx, c, &Decide{ToolCallID: c.id, Allow: true, By: by})
		}
	}
	if t.phase == phaseApproval && t.callIdx < len(t.calls) && t.calls[t.callIdx].approval != approvalPending {
		t.runNextCall(ctx)
	}
}

// SetMode changes the approval mode of the run in progress.
type SetMode struct{ Mode string }

func (t *run) spawnCall(ctx actor.Context, c call) {
	t.running = ctx.SpawnPrefix(toolcall.Props(c.id, c.tool, t.toolCall(c), true), "call")
	ctx.Watch(t.running)
}

func (t *run) onToolDone(ctx actor.Context, d *toolcall.Done) {
	if t.callIdx >= len(t.calls) || t.calls[t.callIdx].id != d.ToolCallID {
		return
	}
	ctx.Stop(t.running)
	t.running = nil
	c := &t.calls[t.callIdx]
	status := event.ToolSuccess
	out := d.Result.Output
	switch {
	case d.Cancelled:
		status = event.ToolCancelled
		if out == "" {
			out = "Tool call cancelled."
		}
	case d.Err != nil:
		status, out = event.ToolError, "Error: "+d.Err.Error()
	case d.Result.IsError:
		status = event.ToolError
	}
	t.completeCall(ctx, c, status, out, d.Result, d.Duration)
	if t.cancelled {
		t.end(ctx, event.StopCancelled, t.cancelReason)
		return
	}
	t.afterCall(ctx)
}

// afterCall is a tool boundary: a queued steer is delivered here.
func (t *run) afterCall(ctx actor.Context) {
	t.callIdx++
	t.askQueue(ctx, true)
}

// closeCall ends a call that will not run (cancel, steer): its pending
// request is resolved and it gets its one tool.completed.
func (t *run) closeCall(ctx actor.Context, c *call, status, out string) {
	if c.answered {
		return
	}
	if c.approval == approvalPending {
		why := out
		if t.cancelReason != "" {
			why = t.cancelReason
		}
		observePermission(c, event.PermissionCancelled)
		t.emit(ctx, event.ToolPermissionResolved, event.PermissionResolvedPayload{RunID: t.cfg.RunID, ToolCallID: c.id, Outcome: event.PermissionCancelled, Reason: why})
	}
	t.emitStarted(ctx, c, false)
	t.completeCall(ctx, c, status, out, tools.Result{}, 0)
}

func (t *run) completeCall(ctx actor.Context, c *call, status, out string, r tools.Result, took time.Duration) {
	c.answered = true
	meta := map[string]string{}
	for k, v := range r.Metadata {
		meta[k] = fmt.Sprint(v)
	}
	if len(meta) == 0 {
		meta = nil
	}
	t.emit(ctx, event.ToolCompleted, event.ToolCompletedPayload{
		RunID: t.cfg.RunID, ToolCallID: c.id, Name: c.name, Status: status, Output: out,
		OutputType: string(r.OutputType), Metadata: meta, DurationMS: took.Milliseconds(), FullOutputPath: r.FullOutputPath,
	})
}

// onTerminated: a tool-call actor that stopped without a result crashed.
func (t *run) onTerminated(ctx actor.Context, who *actor.PID) {
	if t.running == nil || !t.running.Equal(who) || t.callIdx >= len(t.calls) {
		return
	}
	t.onToolDone(ctx, &toolcall.Done{ToolCallID: t.calls[t.callIdx].id, Err: fmt.Errorf("tool call actor stopped without a result")})
}
