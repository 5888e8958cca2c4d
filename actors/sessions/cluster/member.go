package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/eventstream"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/cluster/clusterpb"
	"github.com/troupehq/troupe/runtime/metrics"
	"google.golang.org/protobuf/types/known/emptypb"
)

// Options are `troupe daemon --cluster`'s.
type Options struct {
	// Name is the cluster's: members of one name form one cluster.
	Name string
	// Bind is where this member's gRPC remote listens (host:port; port 0
	// picks one); the host is what other members dial.
	Bind string
	// Etcd are the endpoints of the etcd the members keep the topology in
	// (protoactor's etcd provider); set, Membership and Peers are unused.
	Etcd []string
	// Membership is where this member answers the automanaged provider's
	// health checks (host:port), without Etcd.
	Membership string
	// Peers are the membership addresses of every member, this one's
	// included: the automanaged provider polls them for the topology.
	Peers []string
	// Orphans, set when every member shares one store (PostgreSQL), lists
	// the live sessions whose lease no live process holds (the store's
	// Orphans): the member wakes those the cluster places on it, and a
	// session the topology moves away stops here so its new owner can
	// claim it. Nil: each member has its own store, and a session lives
	// where its log is.
	Orphans func(context.Context) ([]string, error)
	// ReclaimEvery is how often Orphans is asked (0: every 2 s); the
	// store's lease TTL bounds how soon a silent member's sessions are
	// orphans at all.
	ReclaimEvery time.Duration
	// Workspaces are the workspace roots this member has (absolute
	// paths): sessions whose cwd is under one are placed only on members
	// that have it (placement.go). Needs a shared store.
	Workspaces []string
}

// Spawner starts the router in the supervision tree (actors.Runtime).
type Spawner interface {
	SpawnChild(props *actor.Props, name string) (*actor.PID, error)
}

// Member is this daemon's membership of the cluster.
type Member struct {
	opts    Options
	cluster *protocluster.Cluster
	router  *actor.PID
	leave   sync.Once
	// topology is the latest the member list published: read from the
	// event stream, since the member list's own set is read unlocked.
	topology atomic.Pointer[protocluster.ClusterTopology]
	watch    *eventstream.Subscription
	leaving  atomic.Bool
	place    *placement // nil without a shared store: every session is of kind Kind
	// release frees what the membership holds past its provider's
	// Shutdown (Stop).
	release func()
}

// membership is the provider keeping the topology, and what it holds
// past its Shutdown: release frees that, once the member stops or if it
// never started.
type membership struct {
	provider protocluster.ClusterProvider
	release  func()
}

// newMembership is the provider opts name: etcd's with Etcd, else the
// automanaged one; kinds are the grain kinds this member hosts (etcd's
// provider reads them from the cluster itself).
func newMembership(sys *actor.ActorSystem, opts Options, host string, kinds []string) (membership, error) {
	if len(opts.Etcd) > 0 {
		return etcdMembership(sys, opts, host)
	}
	return automanagedMembership(sys, opts, kinds)
}

// routerName is the router's name under the guardian: the same on every
// member, so a member asks another's by address.
const routerName = "cluster"

// remoteConnectTries is how often a connection to a member is tried.
const remoteConnectTries = 2

// reclaimerName is the reclaimer's name under the guardian.
const reclaimerName = "cluster-reclaim"

// Join makes sys a cluster member hosting session grains: sessions it
// hosts are started by registry from this member's store, whose rows
// local reads and deletes (the member's own, unclustered facade). It returns once the member has started; the topology fills in as
// peers answer.
func Join(sys *actor.ActorSystem, tree Spawner, registry *actor.PID, local Local, opts Options) (*Member, error) {
	host, port, err := splitHostPort(opts.Bind)
	if err != nil {
		return nil, fmt.Errorf("cluster bind %q: %w", opts.Bind, err)
	}
	if len(opts.Workspaces) > 0 && opts.Orphans == nil {
		return nil, errors.New("cluster workspaces: sessions move between members only with a shared store (--store)")
	}
	m := &Member{opts: opts}
	if opts.Orphans != nil {
		m.place = &placement{cwd: func(ctx context.Context, id string) (string, error) {
			meta, err := local.Meta(ctx, id)
			return meta.Cwd, err
		}}
	}
	props := grainProps(registry, local, opts.Orphans != nil, &m.leaving)
	kinds := []*protocluster.Kind{protocluster.NewKind(Kind, props)}
	kindNames := []string{Kind}
	for _, root := range opts.Workspaces {
		if !filepath.IsAbs(root) {
			return nil, fmt.Errorf("cluster workspace %q: an absolute path is needed", root)
		}
		k := rootKind(filepath.Clean(root))
		kinds = append(kinds, protocluster.NewKind(k, props))
		kindNames = append(kindNames, k)
	}
	mem, err := newMembership(sys, opts, host, kindNames)
	if err != nil {
		return nil, err
	}
	m.release = mem.release
	rcfg := remote.Configure(host, port)
	// A member's connection is tried this often, 2 s apart, before what
	// was sent to it becomes dead letters (protoactor's default, 5, holds
	// every request to a lost member's cached grains for 10 s, which was
	// most of a failover's time): the cluster's request then looks the
	// session up again and reaches its new host.
	rcfg.MaxRetryCount = remoteConnectTries
	ccfg := protocluster.Configure(opts.Name, mem.provider, disthash.New(), rcfg,
		protocluster.WithKinds(kinds...), protocluster.WithRequestTimeout(requestTimeout))
	c := protocluster.New(sys, ccfg)
	m.cluster = c
	m.watch = sys.EventStream.Subscribe(func(e any) {
		if t, ok := e.(*protocluster.ClusterTopology); ok {
			m.topology.Store(t)
			if m.place != nil {
				m.place.update(t)
			}
			metrics.ClusterMembers.Set(float64(len(t.Members)))
		}
	})
	if err := startMember(c); err != nil {
		sys.EventStream.Unsubscribe(m.watch)
		mem.release()
		return nil, err
	}
	if m.router, err = tree.SpawnChild(actor.PropsFromProducer(func() actor.Actor {
		return &router{cluster: c, registry: registry, retryHeld: opts.Orphans != nil, place: m.place}
	}), routerName); err != nil {
		m.Leave()
		m.Stop()
		return nil, err
	}
	if opts.Orphans != nil {
		every := cmp.Or(opts.ReclaimEvery, defaultReclaimEvery)
		if _, err := tree.SpawnChild(actor.PropsFromProducer(func() actor.Actor { return &reclaimer{m: m, every: every} }), reclaimerName); err != nil {
			m.Leave()
			m.Stop()
			return nil, err
		}
	}
	return m, nil
}

// startMember is c.StartMember, whose failures (a port taken) panic.
func startMember(c *protocluster.Cluster) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cluster: start member: %v", r)
		}
	}()
	c.StartMember()
	return nil
}

func splitHostPort(addr string) (string, int, error) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return "", 0, fmt.Errorf("port %q: %w", p, err)
	}
	return h, n, nil
}

// Router is the actor the facade sends session requests to
// (sessions.Client.Clustered).
func (m *Member) Router() *actor.PID { return m.router }

// Address is this member's remote address.
func (m *Member) Address() string { return m.cluster.ActorSystem.Address() }

// Meta reads session id's row on the member hosting it.
func (m *Member) Meta(ctx context.Context, id string) (sessions.Meta, error) {
	res, err := m.request(ctx, &clusterpb.Request{SessionId: id, Body: &clusterpb.Request_GetMeta{GetMeta: &clusterpb.GetMeta{}}})
	if err != nil {
		return sessions.Meta{}, err
	}
	if res.Error != nil {
		return sessions.Meta{}, errorFromPB(res.Error)
	}
	return fromJSON[sessions.Meta](res.GetMeta().GetMetaJson(), "session meta")
}

// Delete removes session id on the member hosting it.
func (m *Member) Delete(ctx context.Context, id string) error {
	res, err := m.request(ctx, &clusterpb.Request{SessionId: id, Body: &clusterpb.Request_Delete{Delete: &clusterpb.Delete{}}})
	if err != nil {
		return err
	}
	if res.Error == nil {
		m.place.forget(id)
	}
	return errorFromPB(res.Error)
}

func (m *Member) request(ctx context.Context, req *clusterpb.Request) (*clusterpb.Reply, error) {
	timeout := requestTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	kind, err := m.place.kind(ctx, req.SessionId, "")
	if err != nil {
		return nil, &sessions.UnreachableError{Session: req.SessionId, Err: err}
	}
	res, err := requestMoving(m.cluster, req.SessionId, kind, req, timeout, m.place != nil, ctx.Done())
	if err != nil {
		return nil, &sessions.UnreachableError{Session: req.SessionId, Err: err}
	}
	if deadLetter(res, nil) {
		return nil, &sessions.UnreachableError{Session: req.SessionId, Err: errMemberGone}
	}
	reply, ok := res.(*clusterpb.Reply)
	if !ok {
		return nil, fmt.Errorf("cluster: unexpected reply %T", res)
	}
	if reply.RouteFailed != nil {
		return nil, &sessions.UnreachableError{Session: req.SessionId, Err: errorFromPB(reply.RouteFailed)}
	}
	return reply, nil
}

// statusTimeout bounds a member's answer to a status request.
const statusTimeout = 5 * time.Second

// Status asks every member of the topology which sessions it hosts.
func (m *Member) Status(ctx context.Context) (sessions.ClusterStatus, error) {
	st := sessions.ClusterStatus{Name: m.opts.Name, Self: m.Address()}
	var members []*protocluster.Member
	if t := m.topology.Load(); t != nil {
		members = t.Members
	}
	st.Members = make([]sessions.ClusterMember, len(members))
	var wg sync.WaitGroup
	for i, mem := range members {
		st.Members[i] = sessions.ClusterMember{ID: mem.Id, Address: mem.Address(), Sessions: -1}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pid := actor.NewPID(mem.Address(), m.router.Id)
			res, err := m.cluster.ActorSystem.Root.RequestFuture(pid, &clusterpb.HostedRequest{}, statusTimeout).Result()
			if h, ok := res.(*clusterpb.Hosted); ok && err == nil {
				st.Members[i].Sessions = len(h.SessionIds)
			}
		}()
	}
	wg.Wait()
	return st, ctx.Err()
}

// Leave takes this member out of the topology: the provider stops
// answering its peers, so they place no more sessions here. The remote
// keeps running for the sessions still stopping (Stop ends it).
func (m *Member) Leave() {
	m.leave.Do(func() {
		m.leaving.Store(true)
		c := m.cluster
		c.Gossip.SetState(protocluster.GracefullyLeftKey, &emptypb.Empty{})
		if err := c.Config.ClusterProvider.Shutdown(true); err != nil {
			c.Logger().Warn("cluster provider shutdown", slog.Any("error", err))
		}
		c.IdentityLookup.Shutdown()
		c.Gossip.Shutdown()
	})
}

// Stop ends the remote; the actor system itself is the runtime's to stop.
func (m *Member) Stop() {
	m.Leave()
	m.cluster.ActorSystem.EventStream.Unsubscribe(m.watch)
	m.cluster.Remote.Shutdown(false)
	m.release()
}
