package tools

import (
	"fmt"
	"strings"
	"sync"
)

// Builtins returns the built-in tools, in the order they are presented to
// the model.
func Builtins() []Tool {
	return []Tool{Read{}, Write{}, Edit{}, Bash{}, Glob{}, Grep{}, Ls{}}
}

// Registry holds the tools a session offers. It is safe for concurrent use,
// since MCP servers may add tools while calls are running.
type Registry struct {
	mu    sync.RWMutex
	order []Tool
	index map[string]Tool // by lower-cased name
}

// NewRegistry returns a registry holding tools, or an error if two share a
// name.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{index: map[string]Tool{}}
	for _, t := range tools {
		if err := r.Register(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds t. Names are unique regardless of case, because Lookup
// ignores case.
func (r *Registry) Register(t Tool) error {
	if t.Name() == "" {
		return fmt.Errorf("register tool: empty name")
	}
	key := strings.ToLower(t.Name())
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.index[key]; dup {
		return fmt.Errorf("register tool %q: name already taken", t.Name())
	}
	r.index[key] = t
	r.order = append(r.order, t)
	return nil
}

// Lookup finds a tool by name, ignoring case: models trained on Claude Code
// or aionrs call "Read" and "Bash" for what pi calls "read" and "bash".
func (r *Registry) Lookup(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.index[strings.ToLower(name)]
	return t, ok
}

// Tools returns the registered tools in registration order.
func (r *Registry) Tools() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]Tool(nil), r.order...)
}
