package mcp

import (
	"slices"
	"sync"

	"github.com/troupehq/troupe/runtime/tools"
)

// Toolset is what a session's MCP servers offer right now. Each server's
// actor replaces its own entry when it (re)connects or its tools change;
// a turn reads the whole set at the start of every step, so the model is
// offered the new tools on its next request, not only its next run. It is
// safe for concurrent use, and a nil *Toolset holds nothing.
type Toolset struct {
	mu     sync.RWMutex
	order  []string // server names, in the session's configuration order
	byName map[string][]tools.Tool
}

// NewToolset holds the tools of servers, listed in their order.
func NewToolset(servers []ServerConfig) *Toolset {
	s := &Toolset{byName: map[string][]tools.Tool{}}
	for _, c := range servers {
		s.order = append(s.order, c.Name)
	}
	return s
}

// set replaces server's tools.
func (s *Toolset) set(server string, ts []tools.Tool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.order, server) {
		s.order = append(s.order, server)
	}
	s.byName[server] = slices.Clone(ts)
}

// Tools is every server's tools, servers in configuration order.
func (s *Toolset) Tools() []tools.Tool {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []tools.Tool
	for _, name := range s.order {
		out = append(out, s.byName[name]...)
	}
	return out
}
