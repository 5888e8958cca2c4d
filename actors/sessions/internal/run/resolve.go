package run

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/llm"
)

// Model is what a resolved model selection gives the turn.
type Model struct {
	Provider  llm.Provider
	ID        string
	MaxTokens int
	Thinking  llm.ThinkingLevel
	ToolStyle string // native | text (auto already decided)
	Cost      func(event.Usage) float64
	// ContextWindow enables automatic compaction; 0 disables it.
	ContextWindow int
}

// Resolver picks the provider and model for a run. It may do I/O (reading
// models.yml, asking llama-server's /props whether it supports tool calls),
// so the turn calls it off its mailbox.
type Resolver func(ctx context.Context) (Model, error)

type resolved struct {
	model Model
	err   error
}

// resolve runs the resolver in a goroutine the turn owns (it ends on its
// own or when the turn stops) and reports back.
func (t *turn) resolve(ctx actor.Context) {
	if t.cfg.Resolve == nil {
		t.begin(ctx)
		return
	}
	rctx, cancel := context.WithCancel(context.Background())
	t.cancelStream = cancel
	self, root, fn := ctx.Self(), ctx.ActorSystem().Root, t.cfg.Resolve
	go func() {
		m, err := fn(rctx)
		root.Send(self, &resolved{model: m, err: err})
	}()
}

func (t *turn) onResolved(ctx actor.Context, m *resolved) {
	t.cancelStream = nil
	if t.cancelled {
		t.end(ctx, event.StopCancelled, t.cancelReason)
		return
	}
	if t.modelStale {
		// The settings changed while this answer was being worked out.
		t.modelStale = false
		t.resolve(ctx)
		return
	}
	if m.err != nil {
		t.errKind = event.ErrorKindConfig
		t.end(ctx, event.StopError, m.err.Error())
		return
	}
	t.cfg.Provider, t.cfg.Model, t.cfg.MaxTokens = m.model.Provider, m.model.ID, m.model.MaxTokens
	t.cfg.Thinking, t.cfg.Cost = m.model.Thinking, m.model.Cost
	if m.model.ContextWindow > 0 {
		t.cfg.ContextWindow = m.model.ContextWindow
	}
	if m.model.ToolStyle != "" {
		t.cfg.ToolStyle = m.model.ToolStyle
	}
	t.begin(ctx)
}

// begin starts the run proper, or the manual compaction it exists for.
func (t *turn) begin(ctx actor.Context) {
	if !t.cfg.CompactOnly {
		t.nextStep(ctx, t.pendingInstruction)
		return
	}
	if !t.startCompaction(ctx, event.CompactionManual, t.cfg.Instructions, thenFinish) {
		ctx.Send(t.cfg.Session, &Compacted{RunID: t.cfg.RunID, Token: t.cfg.Token, Err: errString("nothing to compact")})
		t.end(ctx, event.StopEndTurn, "")
	}
}

// Reconfigure reaches a running turn when the session's settings change:
// with Resolve, the model is resolved again before the next LLM call (the
// provider, model or thinking level changed); with AutoRetry, automatic
// retries follow it from the next failure.
type Reconfigure struct {
	Resolve   Resolver
	AutoRetry *bool
}

func (t *turn) reconfigure(m *Reconfigure) {
	if m.AutoRetry != nil {
		t.cfg.Retry.Enabled = *m.AutoRetry
	}
	if m.Resolve != nil {
		t.cfg.Resolve, t.modelStale = m.Resolve, true
	}
}

// resolveAgain resolves the new model before the step nextStep was about
// to start; onResolved comes back to it.
func (t *turn) resolveAgain(ctx actor.Context, instruction string) {
	t.modelStale = false
	t.pendingInstruction = instruction
	t.phase = phaseResolving
	t.resolve(ctx)
}
