package turn

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/toolcall"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/tools"
)

// permissionOptions are offered for every request (ACP's option kinds).
var permissionOptions = []event.PermissionOption{
	{OptionID: "allow_once", Name: "Allow once", Kind: "allow_once"},
	{OptionID: "allow_always", Name: "Always allow", Kind: "allow_always"},
	{OptionID: "reject_once", Name: "Reject", Kind: "reject_once"},
}

func (t *turn) lookup(name string) tools.Tool {
	for _, tl := range t.cfg.Tools {
		if strings.EqualFold(tl.Name(), name) {
			return tl
		}
	}
	return nil
}

func (t *turn) toolCall(c call) tools.Call {
	return tools.Call{Cwd: t.cfg.Cwd, AllowedDirs: t.cfg.AllowedDirs, Args: []byte(c.args), SpillDir: t.cfg.SpillDir}
}

// runNextCall executes the step's calls one at a time, in order, so that a
// steer can skip the rest at each boundary.
func (t *turn) runNextCall(ctx actor.Context) {
	t.phase = phaseTools
	if t.callIdx >= len(t.calls) {
		t.nextStep(ctx, "")
		return
	}
	c := &t.calls[t.callIdx]
	c.tool = t.lookup(c.name)
	needs := false
	if c.tool != nil {
		needs = t.inspect(ctx, c)
	}
	switch {
	case c.parseErr != "":
		t.emitStarted(ctx, *c, false)
		t.completeCall(ctx, *c, "error", "Error: "+c.parseErr, tools.Result{}, 0)
		t.afterCall(ctx)
	case c.tool == nil:
		t.emitStarted(ctx, *c, false)
		t.completeCall(ctx, *c, "error", fmt.Sprintf("Error: unknown tool %q; available tools: %s", c.name, toolNames(t.cfg.Tools)), tools.Result{}, 0)
		t.afterCall(ctx)
	case c.toolErr != "":
		t.emitStarted(ctx, *c, false)
		t.completeCall(ctx, *c, "error", "Error: "+c.toolErr, tools.Result{}, 0)
		t.afterCall(ctx)
	case needs:
		t.requestApproval(ctx, *c)
	default:
		t.emitStarted(ctx, *c, false)
		t.spawnCall(ctx, *c)
	}
}

// inspect asks the tool for its category and the policy whether the call
// needs approval. Both run tool code (Category, Touches) on the turn's
// mailbox, so a panic there fails this call instead of the turn.
func (t *turn) inspect(ctx actor.Context, c *call) (needs bool) {
	defer func() {
		if r := recover(); r != nil {
			ctx.Logger().Error("tool panicked", "tool", c.name, "tool_call", c.id, "reason", fmt.Sprint(r), "stack", string(debug.Stack()))
			c.toolErr = fmt.Sprintf("tool %s crashed: %v", c.name, r)
			needs = false
		}
	}()
	c.category = string(c.tool.Category())
	return t.policy.needsApproval(c.tool, t.toolCall(*c))
}

func (t *turn) emitStarted(ctx actor.Context, c call, awaiting bool) {
	t.begun++
	t.emit(ctx, event.ToolStarted, event.ToolStartedPayload{
		RunID: t.cfg.RunID, ToolCallID: c.id, Name: c.name, Category: c.category, Arguments: c.args,
		Origin: c.origin, MessageID: t.msgID, AwaitingApproval: awaiting,
	})
}

func (t *turn) requestApproval(ctx actor.Context, c call) {
	t.emitStarted(ctx, c, true)
	t.emit(ctx, event.ToolPermissionRequested, event.PermissionRequestedPayload{
		RunID: t.cfg.RunID, ToolCallID: c.id, Name: c.name, Category: c.category,
		Arguments: c.args, Options: permissionOptions,
	})
	t.phase = phaseApproval
	if t.policy.DenyUnapproved {
		_ = t.decide(ctx, &Decide{ToolCallID: c.id, Reason: "this session cannot ask for approval and its mode (" + t.policy.Mode + ") requires it", By: "mode"})
	}
}

// decide applies a client's decision on the pending permission request.
func (t *turn) decide(ctx actor.Context, d *Decide) error {
	if t.phase != phaseApproval || t.callIdx >= len(t.calls) || t.calls[t.callIdx].id != d.ToolCallID {
		return fmt.Errorf("no permission request pending for tool call %s", d.ToolCallID)
	}
	c := t.calls[t.callIdx]
	if !d.Allow {
		t.emit(ctx, event.ToolPermissionResolved, event.PermissionResolvedPayload{RunID: t.cfg.RunID, ToolCallID: c.id, Outcome: "denied", OptionID: d.OptionID, Reason: d.Reason, ResolvedBy: d.By})
		msg := "Permission denied by the user."
		if d.Reason != "" {
			msg = "Permission denied: " + d.Reason
		}
		t.completeCall(ctx, c, "error", msg, tools.Result{}, 0)
		t.afterCall(ctx)
		return nil
	}
	t.emit(ctx, event.ToolPermissionResolved, event.PermissionResolvedPayload{RunID: t.cfg.RunID, ToolCallID: c.id, Outcome: "allowed", OptionID: d.OptionID, ResolvedBy: d.By})
	if d.Always {
		cat := c.category
		t.policy.Allowed[cat] = true
		ctx.Send(t.cfg.Session, &AllowCategory{Category: cat})
	}
	t.phase = phaseTools
	t.spawnCall(ctx, c)
	return nil
}

func (t *turn) spawnCall(ctx actor.Context, c call) {
	t.running = ctx.Spawn(toolcall.Props(c.id, c.tool, t.toolCall(c), true))
	ctx.Watch(t.running)
}

func (t *turn) onToolDone(ctx actor.Context, d *toolcall.Done) {
	if t.callIdx >= len(t.calls) || t.calls[t.callIdx].id != d.ToolCallID {
		return
	}
	ctx.Stop(t.running)
	t.running = nil
	c := t.calls[t.callIdx]
	status := "success"
	out := d.Result.Output
	switch {
	case d.Cancelled:
		status = "cancelled"
		if out == "" {
			out = "Tool call cancelled."
		}
	case d.Err != nil:
		status, out = "error", "Error: "+d.Err.Error()
	case d.Result.IsError:
		status = "error"
	}
	t.completeCall(ctx, c, status, out, d.Result, d.Duration)
	if t.cancelled {
		t.end(ctx, StopCancelled, t.cancelReason)
		return
	}
	t.afterCall(ctx)
}

// afterCall is a tool boundary: a queued steer is delivered here.
func (t *turn) afterCall(ctx actor.Context) {
	t.callIdx++
	t.askQueue(ctx, true)
}

func (t *turn) completeCall(ctx actor.Context, c call, status, out string, r tools.Result, took time.Duration) {
	t.answered++
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
func (t *turn) onTerminated(ctx actor.Context, who *actor.PID) {
	if t.running == nil || !t.running.Equal(who) || t.callIdx >= len(t.calls) {
		return
	}
	t.onToolDone(ctx, &toolcall.Done{ToolCallID: t.calls[t.callIdx].id, Err: fmt.Errorf("tool call actor stopped without a result")})
}
