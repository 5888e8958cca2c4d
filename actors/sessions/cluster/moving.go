package cluster

import (
	"errors"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/cluster/clusterpb"
)

// A session is moving between members for a moment after a member is
// lost or joins: the grain's old member may be unreachable (its cached
// PID answers with dead letters until the topology drops it), or, with a
// shared store, the session may still be held by its old host while it
// stops (or by a silent member whose lease has not lapsed). A request
// that meets either is sent again, after a short wait, for up to
// movingFor; below requestTimeout, so the facade hears the outcome itself.
const movingFor = 20 * time.Second

// errMemberGone is a request's failure when the session's member stayed
// unreachable for as long as requestMoving tried.
var errMemberGone = errors.New("cluster: the member hosting the session is unreachable")

// requestMoving sends req to session id's grain of kind through c, and
// again while the session is moving. retryHeld: a refusal as held counts
// as moving (only with a shared store: otherwise it is another troupe on
// the member's own store). It gives up early when done closes.
func requestMoving(c *protocluster.Cluster, id, kind string, req *clusterpb.Request, timeout time.Duration, retryHeld bool, done <-chan struct{}) (any, error) {
	giveUp := time.Now().Add(movingFor)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		dropLeft(c, id, kind)
		res, err := c.Request(id, kind, req, protocluster.WithTimeout(timeout))
		lost := deadLetter(res, err)
		if !lost && !(retryHeld && err == nil && isHeld(res)) {
			return res, err
		}
		if time.Now().Add(wait).After(giveUp) {
			return res, err
		}
		if lost {
			// The library drops a cached PID on a dead letter only when
			// the future fails, not when it answers with one.
			c.PidCache.Remove(id, kind)
		}
		select {
		case <-done:
			return res, err
		case <-time.After(wait):
		}
	}
}

// dropLeft drops session id's cached PID when it names a member the
// topology no longer has. The library tells watchers a member left (a
// relay's Terminated, so a client's subscribing again) before it clears
// the member's PIDs from the cache, so a request made at once could still
// be sent to it; a member that is only frozen (SIGSTOP, a partition)
// accepts the connection and never answers, and the request would wait
// out its whole timeout instead of meeting a dead letter. The member list
// is replaced before watchers are told.
func dropLeft(c *protocluster.Cluster, id, kind string) {
	pid, ok := c.PidCache.Get(id, kind)
	if !ok || pid.GetAddress() == c.ActorSystem.Address() {
		return
	}
	for _, m := range c.MemberList.Members().Members() {
		if m.Address() == pid.GetAddress() {
			return
		}
	}
	c.PidCache.RemoveByValue(id, kind, pid)
}

// deadLetter reports whether a request reached no actor.
func deadLetter(res any, err error) bool {
	if errors.Is(err, actor.ErrDeadLetter) || errors.Is(err, remote.ErrDeadLetter) {
		return true
	}
	_, ok := res.(*actor.DeadLetterResponse)
	return ok
}

// isHeld reports whether res refuses the request because another process
// holds the session's lease.
func isHeld(res any) bool {
	pb, ok := res.(*clusterpb.Reply)
	if !ok {
		return false
	}
	held := sessions.KindHeld.String()
	return pb.GetError().GetKind() == held || pb.GetRouteFailed().GetKind() == held
}
