package engine

import (
	"context"
	"fmt"
	"os"

	"github.com/troupehq/troupe/actors/sessions/internal/upstream"
	"github.com/troupehq/troupe/runtime/agentcatalog"
)

// catalogue is the daemon's catalogue, or the home's configuration read
// now (no registry is fetched without a daemon to cache it).
func (e *Engine) catalogue() (*agentcatalog.Catalog, error) {
	if e.opts.Agents != nil {
		return e.opts.Agents, nil
	}
	return agentcatalog.Load(e.opts.Home)
}

// agent resolves an external agent's id to its program from the catalogue.
func (e *Engine) agent(id string) (upstream.Launch, error) {
	cat, err := e.catalogue()
	if err != nil {
		return upstream.Launch{}, err
	}
	a, err := cat.Lookup(id)
	if err != nil {
		return upstream.Launch{}, err
	}
	return upstream.Launch{Command: a.Launch.Command, Args: a.Launch.Args, Env: a.Launch.Env}, nil
}

// AgentKnown reports whether the catalogue names the agent id.
func (e *Engine) AgentKnown(id string) bool {
	cat, err := e.catalogue()
	if err != nil {
		return false
	}
	_, err = cat.Lookup(id)
	return err == nil
}

// AgentSession is one session an external agent remembers (its
// session/list answer).
type AgentSession = upstream.Remembered

// ErrAgentCannotList: the agent does not advertise sessionCapabilities.list.
var ErrAgentCannotList = upstream.ErrNoList

// AgentSessions starts the catalogue's agent id in the user's home
// directory (as Hydra does), asks it which sessions it remembers and
// stops it.
func (e *Engine) AgentSessions(ctx context.Context, id string) ([]AgentSession, error) {
	l, err := e.agent(id)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", id, err)
	}
	dir, err := os.UserHomeDir()
	if err != nil {
		dir = os.TempDir()
	}
	return upstream.ListSessions(ctx, l, dir)
}
