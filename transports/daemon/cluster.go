package daemon

import (
	"context"
	"log/slog"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions/cluster"
)

// joinCluster makes the runtime a cluster member: its sessions facade
// from here on reaches every session through the cluster (the front ends
// are built after, on rt.Sessions). The store stays the member's own
// (actors.Start chose it); sessions it hosts live in it.
func joinCluster(rt *actors.Runtime, opts cluster.Options, log *slog.Logger) error {
	local := rt.Sessions
	m, err := cluster.Join(rt.System, rt, rt.Registry(), local, opts)
	if err != nil {
		return configError{err}
	}
	rt.Sessions = local.Clustered(m.Router(), m)
	// Out of the topology first, so no session is placed here while it
	// stops; the remote last, once its sessions have stopped.
	rt.OnShutdown(actors.StageInput, func(context.Context) error { m.Leave(); return nil })
	rt.OnShutdown(actors.StageStore, func(context.Context) error { m.Stop(); return nil })
	log.Info("joined the cluster", "cluster", opts.Name, "address", m.Address(), "peers", opts.Peers)
	return nil
}
