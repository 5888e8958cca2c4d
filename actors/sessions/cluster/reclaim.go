package cluster

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions/cluster/clusterpb"
	"github.com/troupehq/troupe/runtime/metrics"
)

// A member that crashed or froze leaves sessions the store says are live
// under a lease nobody renews. Nothing else would wake them until a
// client asked, and a run that was streaming would wait for that. The
// reclaimer on every member asks the shared store for such orphans every
// ReclaimEvery and wakes those the cluster places on this member (each
// orphan is woken by one member: the one the identity lookup names);
// waking claims the lapsed lease under a new epoch and recovery resumes
// what was running by the crash policy.

const (
	defaultReclaimEvery = 2 * time.Second
	// wakeTimeout bounds one wake: claim, load, recovery.
	wakeTimeout = 30 * time.Second
	// wakers is how many orphans are woken at once.
	wakers = 8
)

type reclaimTick struct{}

type reclaimDone struct{ woken, failed int }

// reclaimer owns its ticker goroutine and one scan at a time: both end
// when ctx does, which its stop cancels (a wake in flight ends within
// wakeTimeout; nothing waits for it in the mailbox).
type reclaimer struct {
	m      *Member
	every  time.Duration
	ctx    context.Context
	cancel context.CancelFunc
	busy   bool
	log    *slog.Logger
}

func (r *reclaimer) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		r.log = actorlog.For(ctx)
		r.ctx, r.cancel = context.WithCancel(context.Background())
		c, self, root := r.ctx, ctx.Self(), ctx.ActorSystem().Root
		go func() {
			t := time.NewTicker(r.every)
			defer t.Stop()
			for {
				select {
				case <-c.Done():
					return
				case <-t.C:
					root.Send(self, &reclaimTick{})
				}
			}
		}()
	case *reclaimTick:
		if r.busy || r.m.leaving.Load() {
			return
		}
		r.busy = true
		r.scan(ctx)
	case *reclaimDone:
		r.busy = false
		if m.woken > 0 || m.failed > 0 {
			r.log.Info("woke orphaned sessions", "woken", m.woken, "failed", m.failed)
		}
	case *actor.Stopping:
		r.cancel()
	}
}

// scan lists the orphans and wakes this member's, off the mailbox.
func (r *reclaimer) scan(ctx actor.Context) {
	self, root := ctx.Self(), ctx.ActorSystem().Root
	c := r.ctx
	go func() {
		var woken, failed atomic.Int64
		defer func() { root.Send(self, &reclaimDone{woken: int(woken.Load()), failed: int(failed.Load())}) }()
		ids, err := r.m.opts.Orphans(c)
		if err != nil {
			r.log.Warn("list orphaned sessions", "error", err)
			return
		}
		mine := r.m.placedHere(c, ids)
		var wg sync.WaitGroup
		work := make(chan string)
		for range min(wakers, len(mine)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for id := range work {
					if err := r.m.wake(c, id); err != nil {
						metrics.ClusterSessionsWoken.WithLabelValues("error").Inc()
						failed.Add(1)
						r.log.Warn("wake orphaned session", "session", id, "error", err)
					} else {
						metrics.ClusterSessionsWoken.WithLabelValues("ok").Inc()
						woken.Add(1)
					}
				}
			}()
		}
		for _, id := range mine {
			select {
			case work <- id:
			case <-c.Done():
			}
		}
		close(work)
		wg.Wait()
	}()
}

// placedHere keeps the ids the cluster's identity lookup places on this
// member under the latest topology.
func (m *Member) placedHere(ctx context.Context, ids []string) []string {
	t := m.topology.Load()
	if t == nil || len(ids) == 0 {
		return nil
	}
	rdv := protocluster.NewRendezvous()
	rdv.UpdateMembers(t.Members)
	me := m.Address()
	var out []string
	for _, id := range ids {
		kind, err := m.place.kind(ctx, id, "")
		if err != nil {
			continue // its workspace is on no member now: it waits for one
		}
		if rdv.GetByClusterIdentity(&protocluster.ClusterIdentity{Identity: id, Kind: kind}) == me {
			out = append(out, id)
		}
	}
	return out
}

// wake activates session id's grain here, which starts the session from
// the store: a harmless state read does it.
func (m *Member) wake(ctx context.Context, id string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	ctx, cancel := context.WithTimeout(ctx, wakeTimeout)
	defer cancel()
	res, err := m.request(ctx, &clusterpb.Request{SessionId: id, Body: &clusterpb.Request_GetState{GetState: &clusterpb.GetState{}}})
	if err != nil {
		return err
	}
	return errorFromPB(res.Error)
}
