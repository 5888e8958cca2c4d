package pipeline

import (
	"crypto/rand"
	"encoding/json"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/agentmcp"
)

// Peer names a process connection: an extension or a transformer, known
// from the per-process token it connected with. A zero Peer is a client.
type Peer struct {
	Kind string // extension | transformer
	Name string
}

// Process kinds, as plugins names them.
const (
	KindExtension   = "extension"
	KindTransformer = "transformer"
)

// DefaultClaimTimeout is how long a processing claim stays parked without
// a discharge or a keep_alive.
const DefaultClaimTimeout = 30 * time.Second

// DefaultIdleAfter is Pipeline.IdleAfter's default.
const DefaultIdleAfter = time.Minute

// Pipeline is what the connections of one daemon share about its
// processes. Each part is its own type with its own lock (see doc.go).
type Pipeline struct {
	// ClaimTimeout bounds a processing claim (DefaultClaimTimeout when 0).
	ClaimTimeout time.Duration
	// IdleAfter is the quiet after a session's last event that fires
	// session.idle (DefaultIdleAfter when 0).
	IdleAfter time.Duration
	// Defaults is the chain of a session whose session/new names none.
	Defaults []string
	// OnVersion, when set, learns the version a process reported in its
	// initialize.
	OnVersion func(Peer, string)
	// MCPBaseURL is the daemon's http(s)://host:port, for the /mcp/<name>
	// descriptors injected into new sessions ("" injects none).
	MCPBaseURL string
	// Tokens mints and checks the capability tokens of /mcp/<name>:
	// derived from the session id, so a session's token outlives a restart
	// when the key does (the daemon's service token; New's is random).
	Tokens agentmcp.Tokens
	// Links is the spawner (actors/spawner: the guardian's chain-links)
	// chained sessions' links start under, named by their session; a
	// pipeline without one starts no link, and its chains fail open.
	Links *actor.PID

	// The parts, embedded: a method that concerns one part alone is that
	// part's (and promoted); the Pipeline's own are the ones that join
	// parts (a link's start: chains, transformers, gates).
	transformers
	chains
	gates
	claims
	watchers
	released
	tools
	commands
}

// New returns an empty pipeline.
func New() *Pipeline {
	return &Pipeline{
		transformers: transformers{byName: map[string]*transformer{}},
		chains:       chains{names: map[string][]string{}, links: map[string]*actor.PID{}, relive: map[string]int64{}},
		claims:       claims{byToken: map[string]*actor.PID{}},
		watchers:     watchers{bySession: map[string]map[string]*actor.PID{}},
		released:     released{set: map[string]bool{}},
		tools:        tools{byName: map[string]*mcpServer{}},
		commands:     commands{byName: map[string]*commandProcess{}},
		Tokens:       agentmcp.NewTokens(rand.Text()),
	}
}

func (p *Pipeline) idleAfter() time.Duration {
	if p.IdleAfter > 0 {
		return p.IdleAfter
	}
	return DefaultIdleAfter
}

func (p *Pipeline) claimTimeout() time.Duration {
	if p.ClaimTimeout > 0 {
		return p.ClaimTimeout
	}
	return DefaultClaimTimeout
}

// ProcessGone forgets what a process's connection registered when it
// closes: its place as a transformer, its tools, its slash commands (if
// conn is still the one that registered them). commandsGone says the
// sessions' available commands changed.
func (p *Pipeline) ProcessGone(peer Peer, conn *actor.PID) (commandsGone bool) {
	if peer.Kind == KindTransformer {
		p.transformers.remove(peer.Name, conn)
	}
	if peer.Kind != "" {
		p.tools.drop(peer.Name, conn)
		commandsGone = p.commands.drop(peer.Name, conn)
	}
	return commandsGone
}

// Lifecycle sends event to the transformers of session's chain that
// intercept it (only to `only` when set).
func (p *Pipeline) Lifecycle(root *actor.RootContext, session, ev string, payload any, only string) {
	n := &Notify{Method: "hydra-acp/transformer/session_event",
		Params: map[string]any{"event": ev, "sessionId": session, "payload": payload}}
	for _, name := range p.ChainOf(session) {
		if only != "" && name != only {
			continue
		}
		if conn, ok := p.transformers.intercepting(name, "lifecycle:"+ev); ok {
			root.Send(conn, n)
		}
	}
}

// Opened sets up a session made outside /acp (REST): its chain (as
// ResolveChain made it and its session.created records it), its link, and
// session.opened to the transformers.
func (p *Pipeline) Opened(system *actor.ActorSystem, s *sessions.Client, session string, chain []string) {
	if len(chain) == 0 {
		return
	}
	p.RestoreChain(session, chain)
	p.EnsureLink(system, s, session, 1)
	p.Lifecycle(system.Root, session, "session.opened", map[string]any{}, "")
}

// SessionGone forgets what the pipeline holds of a deleted session: its
// queued commands and its chain (a bundle imported onto the same id, with
// replace, starts with none; its link ended with the session).
func (p *Pipeline) SessionGone(session string) {
	p.chains.forget(session)
	p.commands.sessionGone(session)
}

// MCPServersFor adds the /mcp/<name> descriptors of the processes that
// registered tools to a new session's mcpServers.
func (p *Pipeline) MCPServersFor(session string, servers json.RawMessage) json.RawMessage {
	return withMCP(servers, p.mcpDescriptors(session))
}
