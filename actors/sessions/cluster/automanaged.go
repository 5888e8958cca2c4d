package cluster

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/labstack/echo"
)

// refreshTTL is how often the automanaged provider polls its peers: a
// member that stops answering leaves the topology within about that.
const refreshTTL = 500 * time.Millisecond

// automanagedMembership is the automanaged provider: every member polls
// every other's health endpoint (opts.Peers, at opts.Membership), which
// names the grain kinds it hosts.
func automanagedMembership(sys *actor.ActorSystem, opts Options, kinds []string) (membership, error) {
	_, mport, err := splitHostPort(opts.Membership)
	if err != nil || mport == 0 {
		return membership{}, fmt.Errorf("cluster membership address %q: a host:port is needed", opts.Membership)
	}
	if len(opts.Peers) == 0 {
		return membership{}, errors.New("cluster: no peers (every member's membership address, this one's included)")
	}
	// The provider's own server listens on every interface; ours listens
	// where we are told, handed to the provider as its server.
	lis, err := net.Listen("tcp", opts.Membership)
	if err != nil {
		return membership{}, fmt.Errorf("cluster membership listener: %w", err)
	}
	web := echo.New()
	web.HideBanner, web.HidePort = true, true
	web.Listener = lis
	// The provider serves a node description the library builds only for
	// its own server; until the remote listens there is none to give.
	web.GET("/_health", func(e echo.Context) error {
		h, p, err := sys.GetHostPort()
		if err != nil || p == 0 {
			return e.NoContent(http.StatusServiceUnavailable)
		}
		return e.JSON(http.StatusOK, automanaged.NewNode(opts.Name, sys.ID, h, p, mport, kinds))
	})
	// The provider's Shutdown closes the server; closing it again is for
	// a member that never started.
	return membership{
		provider: automanaged.NewWithTesting(refreshTTL, mport, web, opts.Peers...),
		release:  func() { _ = web.Close() },
	}, nil
}
