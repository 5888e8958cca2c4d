package cluster

import (
	"errors"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions/cluster/clusterpb"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
)

// A subscription across members is two relays: relayOut on the member
// hosting the session is the session's subscriber and turns each delivery
// into protobuf; relayIn on the member whose client subscribed turns it
// back and hands it to the client's actor. One gRPC stream joins the two,
// so the order the session delivered in is kept.

var errNoTarget = errors.New("cluster: subscribe without a target")

// lostReason is the Closed reason when the other side of a relay is gone.
const lostReason = "the cluster member on the other side of the subscription is gone"

// relayOut lives on the hosting member, a child of the session's grain.
type relayOut struct {
	target    *actor.PID // the relayIn on the subscriber's member
	sessionID string
}

func (r *relayOut) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		// The subscriber's member may go: then nothing reads this
		// subscription and it ends (the session drops a stopped target).
		ctx.Watch(r.target)
	case *session.Events:
		r.sessionID = m.SessionID
		ctx.Send(r.target, eventsToPB(m))
	case *session.Closed:
		ctx.Send(r.target, &clusterpb.Closed{SessionId: m.SessionID, Reason: m.Reason})
		ctx.Stop(ctx.Self())
	case *actor.Terminated:
		ctx.Stop(ctx.Self())
	}
}

// watchRelay tells a relayIn which relayOut feeds it, once the
// subscription is answered.
type watchRelay struct{ out *actor.PID }

// relayIn lives on the subscriber's member, a child of its router.
type relayIn struct {
	target    *actor.PID // the client's actor
	sessionID string
	closed    bool
}

func (r *relayIn) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		ctx.Watch(r.target)
	case *watchRelay:
		ctx.Watch(m.out)
	case *clusterpb.Events:
		ctx.Send(r.target, eventsFromPB(m))
	case *clusterpb.Closed:
		r.close(ctx, m.Reason, false)
	case *actor.Terminated:
		if m.Who.Equal(r.target) {
			ctx.Stop(ctx.Self()) // the client left: relayOut sees this stop and ends the subscription
			return
		}
		// The hosting member left, or the topology moved the session off
		// it (its grain, relayOut's parent, stopped): the session lives
		// on, somewhere.
		r.close(ctx, lostReason, true)
	}
}

func (r *relayIn) close(ctx actor.Context, reason string, moved bool) {
	if !r.closed {
		r.closed = true
		ctx.Send(r.target, &session.Closed{SessionID: r.sessionID, Reason: reason, Moved: moved})
	}
	ctx.Stop(ctx.Self())
}
