package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/etcd"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// etcdDialTimeout bounds the first connection to etcd: a member whose
// etcd does not answer fails to start rather than waiting for it.
const etcdDialTimeout = 5 * time.Second

// etcdMembership is protoactor's etcd provider: each member puts its
// remote address under /troupe/NAME/NAME/NAME@SYSTEM-ID, on a lease it
// keeps alive, and watches the prefix for the others. A member that
// leaves deletes its key; one that dies stops renewing its lease, and
// etcd deletes the key when the lease's TTL runs out. That TTL is the
// provider's own, 3 s (a field New sets and nothing else can), renewed
// every second by the client: a dead member leaves every topology 2 to
// 3.5 s after its last renewal (etcd looks for expired leases every
// 500 ms).
func etcdMembership(sys *actor.ActorSystem, opts Options, host string) (membership, error) {
	// Other members dial the address this member puts in etcd, which is
	// its remote's: the bind host and the port it got.
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return membership{}, fmt.Errorf("cluster bind %q: with etcd membership its host is the address other members dial: name one (not an unspecified address)", opts.Bind)
	}
	// The provider's keys end in "/NAME@ID" and it reads the member's id
	// after the last slash; its watch is a prefix, so the name is in the
	// base key too: cluster "a" never sees cluster "ab"'s members.
	if strings.Contains(opts.Name, "/") {
		return membership{}, fmt.Errorf("cluster name %q: with etcd membership it cannot contain a slash", opts.Name)
	}
	// The provider has no Close for the client it makes, and its calls
	// have no deadline (they wait for an etcd that is gone): stop, once
	// cancelled, ends the client's keep-alive and watch loops and fails
	// every call in flight or to come (stopCalls).
	stop, cancel := context.WithCancel(context.Background())
	provider, err := etcd.NewWithConfig("/troupe/"+opts.Name, clientv3.Config{
		Endpoints:   opts.Etcd,
		DialTimeout: etcdDialTimeout,
		// Without it the client connects lazily, and the provider's first
		// read would wait for an etcd that is not there.
		DialOptions: []grpc.DialOption{grpc.WithBlock(), grpc.WithChainUnaryInterceptor(stopCalls(stop))},
		Context:     stop,
		Logger:      etcdLogger(sys.Logger()),
	})
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s", etcdDialTimeout)
	}
	if err != nil {
		cancel()
		return membership{}, fmt.Errorf("cluster: etcd at %s: %w", strings.Join(opts.Etcd, ","), err)
	}
	return membership{provider: boundedEtcd{Provider: provider, stop: cancel}, release: cancel}, nil
}

// etcdWithin bounds the provider's start (reading the members, putting
// this one's key) and its Shutdown (deleting the key): past it the
// client is stopped, so a member whose etcd went away neither hangs at
// start nor at shutdown. Its key then goes when its lease runs out.
const etcdWithin = 5 * time.Second

// boundedEtcd is the etcd provider with its start and shutdown bounded
// by etcdWithin.
type boundedEtcd struct {
	*etcd.Provider
	stop context.CancelFunc
}

func (p boundedEtcd) StartMember(c *protocluster.Cluster) error {
	t := time.AfterFunc(etcdWithin, p.stop)
	defer t.Stop()
	if err := p.Provider.StartMember(c); err != nil {
		return fmt.Errorf("etcd membership: %w", err)
	}
	return nil
}

func (p boundedEtcd) Shutdown(graceful bool) error {
	t := time.AfterFunc(etcdWithin, p.stop)
	defer t.Stop()
	if err := p.Provider.Shutdown(graceful); err != nil {
		return fmt.Errorf("etcd membership: leaving (the key goes when its lease runs out): %w", err)
	}
	return nil
}

// stopCalls fails the client's calls once stop is done, those waiting
// included. The client's own retry wraps this: the code it gets
// (Aborted) is one it does not retry.
func stopCalls(stop context.Context) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(stop, cancel)()
		err := invoker(ctx, method, req, reply, cc, opts...)
		if err != nil && stop.Err() != nil {
			return status.Error(codes.Aborted, "the member's etcd membership has stopped")
		}
		return err
	}
}
