package acp

import (
	"crypto/rand"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/transports/agentmcp"
)

// Peer names a process connection: an extension or a transformer, known
// from the per-process token it connected with.
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

// Pipeline is what the connections of one daemon share about transformers:
// which are connected (and what they intercept), each session's chain,
// the parked processing claims, and who is attached where (for
// broadcasts). Like the Hub it is only held for a map operation.
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
	// when the key does (the daemon's service token; NewPipeline's is
	// random).
	Tokens agentmcp.Tokens

	mu       sync.Mutex
	peers    map[string]*peerEntry // transformers by name
	chains   map[string][]string   // session -> transformer names
	claims   map[string]*actor.PID // processing token -> the chain run holding it
	watchers map[string]map[string]*actor.PID
	links    map[string]*actor.PID      // sessions whose link runs, and it
	relive   map[string]int64           // sessions live again before their link ended: the next link's first seq
	released map[string]bool            // session\x00toolCallId: permission requests the chain let through
	mcp      map[string]*mcpServerSpec  // tools registered, by process name
	commands map[string]*commandProcess // slash-command verbs, by process name
	pending  []*pendingCommand          // slash commands queued, not yet finished
	gates    sync.Map                   // session -> *gate: agent updates waiting for the response chain (written under mu)
	ngates   atomic.Int32               // how many gates, read without the lock
}

type peerEntry struct {
	conn       *actor.PID
	intercepts map[string]bool
}

// NewPipeline returns an empty pipeline.
func NewPipeline() *Pipeline {
	return &Pipeline{peers: map[string]*peerEntry{}, chains: map[string][]string{},
		claims: map[string]*actor.PID{}, watchers: map[string]map[string]*actor.PID{},
		links: map[string]*actor.PID{}, relive: map[string]int64{}, released: map[string]bool{}, mcp: map[string]*mcpServerSpec{},
		commands: map[string]*commandProcess{}, Tokens: agentmcp.NewTokens(rand.Text())}
}

// DefaultIdleAfter is Pipeline.IdleAfter's default.
const DefaultIdleAfter = time.Minute

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

// addTransformer makes conn the endpoint of transformer name; a restarted
// transformer's new connection replaces the old one. It returns the links
// of the sessions it gates from now on (in their chain, live before it
// connected), which must be told (gateOpened).
func (p *Pipeline) addTransformer(name string, conn *actor.PID, intercepts []string) []*actor.PID {
	set := make(map[string]bool, len(intercepts))
	for _, i := range intercepts {
		set[i] = true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.peers[name] = &peerEntry{conn: conn, intercepts: set}
	var gated []*actor.PID
	for session, l := range p.links {
		if slices.Contains(p.chains[session], name) && p.openGateLocked(session) {
			gated = append(gated, l)
		}
	}
	return gated
}

// removeTransformer drops name's endpoint if it is still conn.
func (p *Pipeline) removeTransformer(name string, conn *actor.PID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.peers[name]; e != nil && e.conn.Equal(conn) {
		delete(p.peers, name)
	}
}

// peer is transformer name's connection when it intercepts what.
func (p *Pipeline) peer(name, what string) (*actor.PID, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.peers[name]
	if e == nil || !e.intercepts[what] {
		return nil, false
	}
	return e.conn, true
}

// ResolveChain is a new session's chain: names (nil: the defaults) that
// are connected now; the others are skipped (fail-open). The session
// records it in its session.created.
func (p *Pipeline) ResolveChain(names []string) []string {
	if names == nil {
		names = p.Defaults
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var chain []string
	for _, n := range names {
		if p.peers[n] != nil && !slices.Contains(chain, n) {
			chain = append(chain, n)
		}
	}
	return chain
}

// RestoreChain sets session's chain as its log records it, connected or
// not: a transformer not yet back after a restart intercepts again once
// it reconnects.
func (p *Pipeline) RestoreChain(session string, chain []string) {
	if len(chain) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.chains[session] = slices.Clone(chain)
}

// attach adds name to a live session's chain (idempotent).
func (p *Pipeline) attach(session, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.chains[session], name) {
		p.chains[session] = append(p.chains[session], name)
	}
}

// inChain reports whether name is in session's chain.
func (p *Pipeline) inChain(session, name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.chains[session], name)
}

// chain is session's chain when one of its transformers intercepts what.
func (p *Pipeline) chain(session, what string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.interceptsLocked(session, what) {
		return nil
	}
	return slices.Clone(p.chains[session])
}

// interceptsLocked reports whether one of session's chain intercepts what;
// under p.mu.
func (p *Pipeline) interceptsLocked(session, what string) bool {
	for _, n := range p.chains[session] {
		if e := p.peers[n]; e != nil && e.intercepts[what] {
			return true
		}
	}
	return false
}

func (p *Pipeline) chainOf(session string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.chains[session])
}

func (p *Pipeline) park(token string, run *actor.PID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.claims[token] = run
}

func (p *Pipeline) unpark(token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.claims, token)
}

func (p *Pipeline) claim(token string) (*actor.PID, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pid, ok := p.claims[token]
	return pid, ok
}

// watch and unwatch track the connections attached to a session, for the
// notifications every attached client gets.
func (p *Pipeline) watch(session string, conn *actor.PID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.watchers[session]
	if w == nil {
		w = map[string]*actor.PID{}
		p.watchers[session] = w
	}
	w[conn.String()] = conn
}

func (p *Pipeline) unwatch(session string, conn *actor.PID) {
	if g := p.gateOf(session); g != nil {
		g.mu.Lock()
		delete(g.projected, conn.String()) // a later attachment of conn starts over
		g.mu.Unlock()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if w := p.watchers[session]; w != nil {
		delete(w, conn.String())
		if len(w) == 0 {
			delete(p.watchers, session)
		}
	}
}

// watchingKeys names the connections attached to session.
func (p *Pipeline) watchingKeys(session string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.watchers[session]))
	for k := range p.watchers[session] {
		out = append(out, k)
	}
	return out
}

func (p *Pipeline) watching(session string) []*actor.PID {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*actor.PID, 0, len(p.watchers[session]))
	for _, c := range p.watchers[session] {
		out = append(out, c)
	}
	return out
}

// held reports a permission request kept from the clients until the
// session's chain lets it through.
func (p *Pipeline) held(session, toolCallID string) bool {
	if p.chain(session, "request:session/request_permission") == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.released[session+"\x00"+toolCallID]
}

func (p *Pipeline) release(session, toolCallID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.released[session+"\x00"+toolCallID] = true
}

// lifecycle sends event to the transformers of session's chain that
// intercept it (only to `only` when set).
func (p *Pipeline) lifecycle(root *actor.RootContext, session, ev string, payload any, only string) {
	n := &peerNotify{method: "hydra-acp/transformer/session_event",
		params: map[string]any{"event": ev, "sessionId": session, "payload": payload}}
	for _, name := range p.chainOf(session) {
		if only != "" && name != only {
			continue
		}
		if conn, ok := p.peer(name, "lifecycle:"+ev); ok {
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
	p.ensureLink(system, s, session, 1)
	p.lifecycle(system.Root, session, "session.opened", map[string]any{}, "")
}

// MCPServersFor adds the /mcp/<name> descriptors of the processes that
// registered tools to a new session's mcpServers.
func (p *Pipeline) MCPServersFor(session string, servers json.RawMessage) json.RawMessage {
	return withMCP(servers, p.mcpDescriptors(session))
}
