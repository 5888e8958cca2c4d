package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/plugins"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/runtime/llm"
	"github.com/troupehq/troupe/transports/acp/pipeline"
	"github.com/troupehq/troupe/transports/daemon"
	"github.com/troupehq/troupe/transports/hydraverbs"
)

// daemonPlugins are the daemon's extensions and transformers: their
// supervisors, the per-process tokens and the transformer pipeline.
type daemonPlugins struct {
	cfg          plugins.Config
	tokens       *plugins.Tokens
	pipeline     *pipeline.Pipeline
	extensions   *plugins.Client
	transformers *plugins.Client
}

// newDaemonPlugins reads config.yml; the supervisors start with start,
// once the daemon's URL is known.
func newDaemonPlugins(rt *actors.Runtime, home string, pipe *pipeline.Pipeline) (*daemonPlugins, error) {
	cfg, err := plugins.LoadConfig(home)
	if err != nil {
		return nil, err
	}
	for _, why := range cfg.Skipped {
		rt.Log.Warn(why)
	}
	p := &daemonPlugins{cfg: cfg, tokens: plugins.NewTokens(), pipeline: pipe,
		extensions:   plugins.NewClient(plugins.KindExtension, rt.System.Root, nil),
		transformers: plugins.NewClient(plugins.KindTransformer, rt.System.Root, nil)}
	p.extensions.Home, p.transformers.Home = home, home
	p.pipeline.Defaults, p.pipeline.ClaimTimeout = cfg.DefaultTransformers, cfg.ClaimTimeout
	p.pipeline.IdleAfter = cfg.IdleEventTimeout
	p.pipeline.OnVersion = func(peer pipeline.Peer, v string) {
		p.tokens.SetVersion(plugins.Identity{Kind: peer.Kind, Name: peer.Name}, v)
	}
	if err := restoreChains(rt.Sessions, p.pipeline); err != nil {
		return nil, err
	}
	return p, nil
}

// restoreChains gives the sessions of the store their recorded transformer
// chains, before anyone can attach: each transformer intercepts its
// sessions again once it has reconnected.
func restoreChains(ss *sessions.Client, pipe *pipeline.Pipeline) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	chains, err := ss.Chains(ctx)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	for id, chain := range chains {
		pipe.RestoreChain(id, chain)
	}
	return nil
}

// peer names the process whose token r carries.
func (p *daemonPlugins) peer(r *http.Request) (pipeline.Peer, bool) {
	for _, tok := range daemon.Presented(r) {
		if id, ok := p.tokens.Lookup(tok); ok {
			return pipeline.Peer{Kind: id.Kind, Name: id.Name}, true
		}
	}
	return pipeline.Peer{}, false
}

// start lets the tokens in and spawns the supervisors, which start the
// configured programs; they are stopped with the other processes.
func (p *daemonPlugins) start(rt *actors.Runtime, srv *daemon.Server, log *slog.Logger) error {
	srv.Auth.Process = func(tok string) bool { _, ok := p.tokens.Lookup(tok); return ok }
	p.tokens.OnRevoked = srv.Auth.Revoked
	p.pipeline.MCPBaseURL = srv.URL()
	url := "ws" + strings.TrimPrefix(srv.URL(), "http") + "/acp"
	for _, k := range []struct {
		c     *plugins.Client
		specs []plugins.Spec
	}{{p.extensions, p.cfg.Extensions}, {p.transformers, p.cfg.Transformers}} {
		opts := plugins.Options{Kind: k.c.Kind, Tokens: p.tokens, URL: url, Log: log}
		pid, err := rt.System.Root.SpawnNamed(plugins.Props(opts, k.specs), k.c.Kind+"s")
		if err != nil {
			return err
		}
		k.c.Bind(pid)
		rt.OnShutdown(actors.StageProcesses, func(context.Context) error {
			return rt.System.Root.StopFuture(pid).Wait()
		})
	}
	return nil
}

// withCommands makes the session engine answer /hydra slash commands:
// hydra's built-in verbs (hydraverbs), and through the extensions that
// registered them the others. The command is queued, run and shown as a
// prompt is, and the reply is the run's text.
func withCommands(se *sessions.Engine, p *pipeline.Pipeline, verbs func() *hydraverbs.Verbs, system func() *actor.ActorSystem) *sessions.Engine {
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
