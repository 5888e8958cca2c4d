package daemon

import (
	"context"
	"log/slog"
	"time"

	"github.com/troupehq/troupe/actors"
	"github.com/troupehq/troupe/actors/sessions/cluster"
)

// joinCluster makes the runtime a cluster member: its sessions facade
// from here on reaches every session through the cluster (the front ends
// are built after, on rt.Sessions). With a shared store (--store) any
// member can host any session: the member wakes orphans a silent member
// left and hands sessions the topology moves away to their new owner.
// Without one the store stays the member's own (actors.Start chose it)
// and the sessions it hosts live in it.
func joinCluster(rt *actors.Runtime, opts cluster.Options, shared bool, log *slog.Logger) error {
	local := rt.Sessions
	if shared {
		opts.Orphans = rt.Store.Orphans
		// An orphan appears a lease TTL after its holder went silent;
		// looking a few times per TTL bounds the wait past it.
		opts.ReclaimEvery = min(max(rt.Store.LeaseTTL()/3, 250*time.Millisecond), 2*time.Second)
	} else {
		log.Warn("clustered without a shared store (--store): each session lives in its member's own store, and a member's loss leaves its sessions unreachable until it returns")
	}
	m, err := cluster.Join(rt.System, rt, rt.Registry(), local, opts)
	if err != nil {
		return configError{err}
	}
	rt.Sessions = local.Clustered(m.Router(), m)
	// Out of the topology first, so no session is placed here while it
	// stops; the remote last, once its sessions have stopped.
	rt.OnShutdown(actors.StageInput, func(context.Context) error { m.Leave(); return nil })
	rt.OnShutdown(actors.StageStore, func(context.Context) error { m.Stop(); return nil })
	log.Info("joined the cluster", "cluster", opts.Name, "address", m.Address(), "etcd", opts.Etcd, "peers", opts.Peers)
	return nil
}
