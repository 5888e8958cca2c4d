package cluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/cluster/clusterpb"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
)

// requestTimeout bounds a request's trip through the cluster (the facade
// bounds its own wait the same way: its future is no longer).
const requestTimeout = 30 * time.Second

// router stands in for the sessions registry in a clustered daemon: the
// facade sends it what it would send the registry (sessions.Route, Kill,
// Live), and it sends each session's requests to the session's grain,
// wherever the cluster placed it. Live stays this member's (what it
// hosts). A request waits on the cluster in a goroutine of its own,
// bounded by requestTimeout, which answers the facade's future directly:
// the identity lookup blocks, and the mailbox must not.
type router struct {
	cluster  *protocluster.Cluster
	registry *actor.PID
	// retryHeld: the store is shared, so a session refused as held by
	// another process is one moving between members (requestMoving).
	retryHeld bool
	done      chan struct{} // closed as the router stops: retries give up
	place     *placement    // each session's grain kind (nil: always Kind)
}

func (r *router) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		r.done = make(chan struct{})
	case *actor.Stopping:
		close(r.done)
	case *sessions.Route:
		r.route(ctx, ctx.Sender(), m)
	case *sessions.Kill:
		r.ask(ctx, ctx.Sender(), &clusterpb.Request{SessionId: m.ID, Body: &clusterpb.Request_Kill{Kill: &clusterpb.Kill{}}}, "", nil)
	case *sessions.Live:
		ctx.Forward(r.registry)
	case *clusterpb.HostedRequest:
		r.hosted(ctx, ctx.Sender())
	default:
		actorlog.Unhandled(actorlog.For(ctx), ctx)
	}
}

func (r *router) route(ctx actor.Context, sender *actor.PID, m *sessions.Route) {
	req, err := requestToPB(m.ID, m.Msg)
	if err != nil {
		ctx.Send(sender, &sessions.RouteFailed{Err: err})
		return
	}
	if p := req.GetPrompt(); p != nil && p.IdempotencyKey == "" {
		// The key is fixed here, before the first try, so the cluster's
		// retry of this request names the same prompt.
		p.IdempotencyKey = newMessageID()
	}
	var cwd string // a session being created names its workspace
	if c, ok := m.Msg.(*session.Create); ok {
		cwd = c.Created.Cwd
	}
	switch msg := m.Msg.(type) {
	case *session.Unsubscribe:
		r.tell(m.ID, req)
	case *session.Subscribe:
		in := ctx.SpawnPrefix(actor.PropsFromProducer(func() actor.Actor { return &relayIn{target: msg.Target, sessionID: m.ID} }), "relay-in")
		req.GetSubscribe().Target = pidToPB(in)
		root := ctx.ActorSystem().Root
		r.ask(ctx, sender, req, "", func(res any, pb *clusterpb.Reply) {
			if s, ok := res.(*session.Subscribed); ok && s.Err == nil {
				if out := pidFromPB(pb.GetSubscribed().GetRelay()); out != nil {
					root.Send(in, &watchRelay{out: out})
				}
				return
			}
			root.Stop(in)
		})
	default:
		r.ask(ctx, sender, req, cwd, nil)
	}
}

// ask sends req to its session's grain and answers sender with the reply
// as the registry would have (after seen, if set, has looked at it).
func (r *router) ask(ctx actor.Context, sender *actor.PID, req *clusterpb.Request, cwd string, seen func(any, *clusterpb.Reply)) {
	root := ctx.ActorSystem().Root
	c := r.cluster
	done, retryHeld, place := r.done, r.retryHeld, r.place
	go func() {
		kind, err := place.kind(context.Background(), req.SessionId, cwd)
		if err != nil {
			failed := &sessions.RouteFailed{Err: &sessions.UnreachableError{Session: req.SessionId, Err: err}}
			if seen != nil {
				seen(failed, nil)
			}
			if sender != nil {
				root.Send(sender, failed)
			}
			return
		}
		res, err := requestMoving(c, req.SessionId, kind, req, requestTimeout, retryHeld, done)
		var reply any
		pb, ok := res.(*clusterpb.Reply)
		switch {
		case err != nil:
			reply = &sessions.RouteFailed{Err: fmt.Errorf("cluster: %w", err)}
		case deadLetter(res, nil):
			reply = &sessions.RouteFailed{Err: errMemberGone}
		case !ok:
			reply = &sessions.RouteFailed{Err: fmt.Errorf("cluster: unexpected reply %T", res)}
		default:
			if reply, err = replyFromPB(pb); err != nil {
				reply = &sessions.RouteFailed{Err: err}
			}
		}
		if seen != nil {
			seen(reply, pb)
		}
		if sender != nil {
			root.Send(sender, reply)
		}
	}()
}

// tell sends req to its session's grain with no answer awaited.
func (r *router) tell(id string, req *clusterpb.Request) {
	c, place := r.cluster, r.place
	go func() {
		kind, err := place.kind(context.Background(), id, "")
		if err != nil {
			return // nothing hosts it: nothing to tell
		}
		if pid := c.Get(id, kind); pid != nil {
			c.ActorSystem.Root.Send(pid, req)
		}
	}()
}

// hosted answers another member's status request with the sessions this
// member's registry has live.
func (r *router) hosted(ctx actor.Context, sender *actor.PID) {
	f := ctx.RequestFuture(r.registry, &sessions.Live{}, localTimeout)
	ctx.ReenterAfter(f, func(res any, err error) {
		out := &clusterpb.Hosted{}
		if live, ok := res.(*sessions.LiveSessions); ok && err == nil {
			out.SessionIds = live.IDs
		}
		ctx.Send(sender, out)
	})
}

// newMessageID is a prompt's message id made by the router, in the
// session's own form (msg- and a time-sortable random id).
func newMessageID() string {
	return "msg-" + strings.TrimPrefix(sessions.NewID(), "s-")
}
