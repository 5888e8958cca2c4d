package engine

import (
	"github.com/troupehq/troupe/actors/sessions/internal/upstream"
	"github.com/troupehq/troupe/runtime/agentcatalog"
)

// agent resolves an external agent's id to its program from the home's
// catalogue, read again at each start so a configuration edited since is
// the one followed.
func (e *Engine) agent(id string) (upstream.Launch, error) {
	cat, err := agentcatalog.Load(e.opts.Home)
	if err != nil {
		return upstream.Launch{}, err
	}
	a, err := cat.Lookup(id)
	if err != nil {
		return upstream.Launch{}, err
	}
	return upstream.Launch{Command: a.Launch.Command, Args: a.Launch.Args, Env: a.Launch.Env}, nil
}

// AgentKnown reports whether the home's catalogue names the agent id.
func (e *Engine) AgentKnown(id string) bool {
	cat, err := agentcatalog.Load(e.opts.Home)
	if err != nil {
		return false
	}
	_, err = cat.Lookup(id)
	return err == nil
}
