package daemon

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/troupehq/troupe/actors/sessions"
	sessionmcp "github.com/troupehq/troupe/actors/sessions/mcp"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acp"
	"github.com/troupehq/troupe/transports/agentmcp"
	"github.com/troupehq/troupe/transports/stdinring"
)

// agentMCP is the daemon's stdin rings and agent-facing MCP servers.
type agentMCP struct {
	rings  *stdinring.Registry
	tokens agentmcp.Tokens
	recall bool // inject hydra-acp-recall into every new session
	// base is the daemon's URL, known once it listens: the descriptors
	// injected into sessions point at it.
	base atomic.Pointer[string]
}

func (m *agentMCP) setBase(url string) { m.base.Store(&url) }

func (m *agentMCP) url() string {
	if p := m.base.Load(); p != nil {
		return *p
	}
	return ""
}

// newAgentMCP signs the capability tokens with this run's own key, so a
// token of an earlier run is refused.
func newAgentMCP(home string, recall bool) *agentMCP {
	return &agentMCP{rings: stdinring.NewRegistry(filepath.Join(home, "stdin"), 0), tokens: agentmcp.NewRunTokens(), recall: recall}
}

// handlers are the routes: the stdin ring's producer side and the two
// MCP servers.
func (m *agentMCP) handlers(ss *sessions.Client, version string, log *slog.Logger) map[string]http.Handler {
	mux := http.NewServeMux()
	(&stdinring.Routes{Rings: m.rings, Sessions: ss.Live, Log: log, Live: func(ctx context.Context, id string) (bool, error) {
		live, err := ss.Live(ctx)
		return slices.Contains(live, id), err
	}}).Register(mux)
	load := func(ctx context.Context, id string, fn func(event.Event) error) error {
		meta, err := ss.Meta(ctx, id)
		if err != nil {
			return err
		}
		inherited, err := ss.Inherited(ctx, meta)
		if err != nil {
			return err
		}
		for _, e := range inherited {
			if err := fn(e); err != nil {
				return err
			}
		}
		return ss.Load(ctx, id, 1, fn)
	}
	return map[string]http.Handler{
		"POST /v1/sessions/{id}/stdin/open": mux,
		"POST /v1/sessions/{id}/stdin":      mux,
		"/mcp/" + agentmcp.StdinServer:      agentmcp.Stdin(m.tokens, m.rings, version, log),
		"/mcp/" + agentmcp.RecallServer:     agentmcp.Recall(m.tokens, load, version, log),
	}
}

// inject is acp.InjectMCP: recall when the daemon was told to (each
// session then connects to it as it starts, which costs: see README),
// stdin when session/new asks.
func (m *agentMCP) inject() acp.InjectMCP {
	return func(id string, stdin bool) []any {
		var out []any
		if m.recall {
			out = append(out, m.tokens.Descriptor(m.url(), agentmcp.RecallServer, id))
		}
		if stdin {
			out = append(out, m.tokens.Descriptor(m.url(), agentmcp.StdinServer, id))
		}
		return out
	}
}

func (m *agentMCP) close(context.Context) error { return m.rings.Close() }

// rebase is session.Engine.MCPServers, run each time a session starts its
// MCP clients: the daemon's own entries of a session (stdin, recall, and an
// extension's /mcp/<name>) are pointed at this daemon's address and given
// this run's token, so a session created before a restart (another port,
// a token now dead) still reaches them.
func (m *agentMCP) rebase(id string, servers []sessionmcp.ServerConfig) []sessionmcp.ServerConfig {
	base := m.url()
	if base == "" {
		return servers
	}
	out := make([]sessionmcp.ServerConfig, len(servers))
	for i, s := range servers {
		if s.Transport() == sessionmcp.TransportHTTP && (s.Name == agentmcp.StdinServer || s.Name == agentmcp.RecallServer || m.extension(id, s)) {
			d := m.tokens.Descriptor(base, s.Name, id)
			s.URL = d.URL
			s.Headers = []sessionmcp.HTTPHeader{{Name: d.Headers[0].Name, Value: d.Headers[0].Value}}
		}
		out[i] = s
	}
	return out
}

// extension reports an entry the daemon injected for an extension's tools:
// its /mcp/<name> with a token of session id's form, minted by this run or
// an earlier one (whose key is gone, so the form is all there is to go on).
// An entry forged alike gains the session nothing it could not have: every
// session the daemon creates is given every extension's tools.
func (m *agentMCP) extension(id string, s sessionmcp.ServerConfig) bool {
	if !strings.HasSuffix(s.URL, "/mcp/"+s.Name) {
		return false
	}
	for _, h := range s.Headers {
		tok, bearer := strings.CutPrefix(h.Value, "Bearer ")
		if !bearer || !strings.EqualFold(h.Name, "Authorization") {
			continue
		}
		if agentmcp.MintedFor(tok, id) {
			return true
		}
	}
	return false
}
