package engine

import (
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
