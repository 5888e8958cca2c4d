package daemon

import (
	"context"
	"log/slog"

	"github.com/troupehq/troupe/runtime/agentcatalog"
)

// loadAgents reads the home's agent catalogue once, as the daemon starts
// (POST /v1/registry/refresh fetches the registry again). A configuration
// it cannot read leaves the daemon with troupe's own agent alone, as a
// broken config.json leaves Hydra's other settings at their defaults:
// warned about, not fatal.
func loadAgents(home string, log *slog.Logger) *agentcatalog.Catalog {
	c, err := agentcatalog.Open(context.Background(), home, agentcatalog.Options{Log: log})
	if err != nil {
		log.Warn("agent catalogue ignored: only troupe's own agent is offered until it is fixed", "error", err)
		return nil
	}
	if err := c.RegistryError(); err != nil {
		log.Warn("agent registry could not be fetched: its cached copy serves, if the home has one", "error", err)
	}
	return c
}
