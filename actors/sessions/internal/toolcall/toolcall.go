// Package toolcall owns one tool call as an actor: it runs the tool off its
// mailbox, forwards cumulative progress, and reports exactly one result to
// its parent (the turn). A panic in the tool becomes an error result for the
// model, never a crash of the session.
//
// It must not decide whether a call may run (the turn asks for approval
// first) and writes no events itself.
package toolcall

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/runtime/metrics"
	"github.com/troupehq/troupe/runtime/proc"
	"github.com/troupehq/troupe/runtime/tools"
)

// Progress carries a call's cumulative output to the parent.
type Progress struct {
	ToolCallID string
	Output     string
}

// Done is the call's one result.
type Done struct {
	ToolCallID string
	Result     tools.Result
	Err        error // the runtime failed (no shell, no cwd); the model is told
	Duration   time.Duration
	Cancelled  bool
}

// Process tells the parent the call started a process group, with what
// proves it (see proc.Proof).
type Process struct {
	ToolCallID string
	Proof      proc.Proof
}

// Cancel stops the call; Done follows with Cancelled set.
type Cancel struct{}

// Props runs tool with call as a child of the caller, which receives
// *Progress (when forward is set) and exactly one *Done, then stops it.
func Props(id string, tool tools.Tool, call tools.Call, forward bool) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &toolCall{id: id, tool: tool, call: call, forward: forward}
	})
}

type toolCall struct {
	id      string
	tool    tools.Tool
	call    tools.Call
	forward bool
	cancel  context.CancelFunc
	done    bool
}

type finished struct{ done *Done }

func (t *toolCall) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		t.start(ctx)
	case *Cancel:
		if t.cancel != nil {
			t.cancel()
		}
	case *finished:
		// The parent stops this actor once it has the result: stopping
		// here would let Terminated overtake Done in the parent's mailbox.
		t.done = true
		ctx.Send(ctx.Parent(), m.done)
	case *actor.Stopping:
		if t.cancel != nil {
			t.cancel()
		}
	default:
		actorlog.Unhandled(actorlog.For(ctx, "tool_call", t.id), ctx)
	}
}

// start runs the tool in a goroutine the actor owns: Cancel or Stopping
// cancels it, and it always ends by sending finished.
func (t *toolCall) start(ctx actor.Context) {
	runCtx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	self, parent, root, log := ctx.Self(), ctx.Parent(), ctx.ActorSystem().Root, actorlog.For(ctx, "tool_call", t.id)
	id, tool, call, forward := t.id, t.tool, t.call, t.forward
	go func() {
		began := time.Now()
		done := &Done{ToolCallID: id}
		call.OnStart = func(p proc.Proof) {
			root.Send(parent, &Process{ToolCallID: id, Proof: p})
		}
		progress := func(partial string) {
			if forward {
				root.Send(parent, &Progress{ToolCallID: id, Output: partial})
			}
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					log.Error("tool panicked", "tool", tool.Name(), "reason", fmt.Sprint(r), "stack", string(debug.Stack()))
					done.Result = tools.Result{IsError: true, Output: fmt.Sprintf("tool %s crashed: %v", tool.Name(), r)}
					done.Err = nil
				}
			}()
			done.Result, done.Err = tool.Run(runCtx, call, progress)
		}()
		done.Cancelled = runCtx.Err() != nil
		done.Duration = time.Since(began)
		metrics.ToolCall(metrics.ToolLabel(tool.Name(), tool.Category() == tools.CategoryMCP), outcome(done), done.Duration)
		root.Send(self, &finished{done: done})
	}()
}

// outcome is a finished call's outcome label.
func outcome(d *Done) string {
	switch {
	case d.Cancelled:
		return metrics.OutcomeCancelled
	case d.Err != nil || d.Result.IsError:
		return metrics.OutcomeError
	default:
		return metrics.OutcomeOK
	}
}
