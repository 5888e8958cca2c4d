package daemon

import (
	"context"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/hydraverbs"
)

// withCommands makes the session engine answer /hydra slash commands:
// hydra's built-in verbs (hydraverbs), and through the extensions that
// registered them the others. The command is queued, run and shown as a
// prompt is, and the reply is the run's text.
func withCommands(se *sessions.Engine, p *pipeline.Pipeline, verbs func() *hydraverbs.Verbs, system func() *actor.ActorSystem) *sessions.Engine {
	// An external agent's session answers the same commands without a
	// provider: the agent never sees them.
	se.IsCommand = pipeline.IsCommand
	se.Command = func(ctx context.Context, session, text string) (string, error) {
		if reply, builtin := verbs().Run(ctx, session, text); builtin {
			return reply, nil
		}
		return p.RunCommand(ctx, system(), session, text)
	}
	inner := se.Resolve
	if inner == nil {
		return se
	}
	se.Resolve = func(ctx context.Context, st sessions.State) (sessions.RunModel, error) {
		m, err := inner(ctx, st)
		if err != nil {
			return m, err
		}
		m.Provider = commandProvider{p: p, verbs: verbs(), system: system(), inner: m.Provider, session: st.ID}
		return m, nil
	}
	return se
}

// commandProvider answers a request whose last message is a slash
// command with a built-in verb (hydraverbs.Verbs.Run) or else
// pipeline.Pipeline.RunCommand; any other goes to inner.
type commandProvider struct {
	p       *pipeline.Pipeline
	verbs   *hydraverbs.Verbs
	system  *actor.ActorSystem
	inner   llm.Provider
	session string
}

func (cp commandProvider) Stream(ctx context.Context, req llm.Request, sink func(llm.Chunk) error) (*llm.Response, error) {
	n := len(req.Messages)
	if n == 0 || req.Messages[n-1].Role != llm.RoleUser || !pipeline.IsCommand(req.Messages[n-1].Content) {
		return cp.inner.Stream(ctx, req, sink)
	}
	text, builtin := cp.verbs.Run(ctx, cp.session, req.Messages[n-1].Content)
	if !builtin {
		var err error
		if text, err = cp.p.RunCommand(ctx, cp.system, cp.session, req.Messages[n-1].Content); err != nil {
			return nil, err
		}
	}
	if sink != nil && text != "" {
		if err := sink(llm.Chunk{Kind: llm.ChunkText, Text: text}); err != nil {
			return nil, err
		}
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: text}, FinishReason: llm.FinishStop}, nil
}
