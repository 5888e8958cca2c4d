package cluster

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	protocluster "github.com/asynkron/protoactor-go/cluster"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/sessions/cluster/clusterpb"
	"github.com/troupehq/troupe/actors/sessions/internal/session"
)

// Kind is the cluster kind of a session grain; its identity is the
// session id.
const Kind = "session"

// localTimeout bounds a grain's request to its member's registry, as the
// facade bounds a request with no deadline.
const localTimeout = 30 * time.Second

// grain is a session as a cluster virtual actor: the cluster's identity
// lookup activates it on one member, where it hands each request to the
// member's own sessions registry (which starts the session from the
// member's store) and answers in protobuf. It holds no session state: the
// session actor under the registry is the session.
type grain struct {
	registry *actor.PID
	store    Local
	// handoff: the store is shared, so when the topology moves the grain
	// elsewhere (the identity lookup stops it here) the session it
	// served stops too, giving its lease up for the new owner to claim.
	// With a store per member it would only strand the session.
	handoff bool
	leaving *atomic.Bool // the member is leaving: its sessions drain as the daemon stops
	id      string       // the session's, from ClusterInit
	// pending are the senders of the requests still waiting on the
	// member (see answerPending).
	pending map[*actor.PID]struct{}
}

// Local is what a grain asks of its own member beyond the registry: the
// facade's store work, on the member's own store (sessions.Client).
type Local interface {
	Meta(ctx context.Context, id string) (sessions.Meta, error)
	Delete(ctx context.Context, id string) error
}

func grainProps(registry *actor.PID, local Local, handoff bool, leaving *atomic.Bool) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &grain{registry: registry, store: local, handoff: handoff, leaving: leaving}
	})
}

func (g *grain) Receive(ctx actor.Context) {
	var req *clusterpb.Request
	switch m := ctx.Message().(type) {
	case *clusterpb.Request:
		req = m
	case *protocluster.ClusterInit:
		g.id = m.Identity.GetIdentity()
		return
	case *actor.Stopping:
		g.answerPending(ctx)
		if g.handoff && g.id != "" && !g.leaving.Load() {
			// Kill, not passivate: a run in progress is cut as by a
			// crash, and the new owner's recovery resumes it.
			ctx.Send(g.registry, &sessions.Kill{ID: g.id})
		}
		return
	default:
		return // the actor's other lifecycle messages
	}
	sender, id := ctx.Sender(), req.SessionId
	switch b := req.Body.(type) {
	case *clusterpb.Request_Kill:
		g.local(ctx, sender, &sessions.Kill{ID: id})
	case *clusterpb.Request_GetMeta:
		g.offMailbox(ctx, sender, func(c context.Context) *clusterpb.Reply {
			m, err := g.store.Meta(c, id)
			if err != nil {
				return &clusterpb.Reply{Error: errorToPB(err)}
			}
			return &clusterpb.Reply{Body: &clusterpb.Reply_Meta{Meta: &clusterpb.MetaReply{MetaJson: mustJSON(m)}}}
		})
	case *clusterpb.Request_Delete:
		g.offMailbox(ctx, sender, func(c context.Context) *clusterpb.Reply {
			return &clusterpb.Reply{Error: errorToPB(g.store.Delete(c, id)), Body: &clusterpb.Reply_Deleted{Deleted: &clusterpb.Deleted{}}}
		})
	case *clusterpb.Request_Subscribe:
		g.subscribe(ctx, sender, id, b.Subscribe)
	default:
		msg, err := requestFromPB(req)
		if err != nil {
			ctx.Send(sender, &clusterpb.Reply{RouteFailed: errorToPB(err)})
			return
		}
		if _, unsub := msg.(*session.Unsubscribe); unsub {
			ctx.Send(g.registry, &sessions.Route{ID: id, Msg: msg})
			return
		}
		g.local(ctx, sender, &sessions.Route{ID: id, Msg: msg})
	}
}

// wait notes that sender's request is waiting on the member; the returned
// func answers it, once, unless the grain stopped first.
func (g *grain) wait(ctx actor.Context, sender *actor.PID) func(*clusterpb.Reply) {
	if g.pending == nil {
		g.pending = map[*actor.PID]struct{}{}
	}
	g.pending[sender] = struct{}{}
	return func(reply *clusterpb.Reply) {
		if _, ok := g.pending[sender]; ok {
			delete(g.pending, sender)
			ctx.Send(sender, reply)
		}
	}
}

// answerPending answers the requests still waiting when the grain stops
// as if they had met no actor. The identity lookup stops a grain whenever
// a topology leaves it on a member that no longer owns it, and also one a
// requester with an older view just activated there; a continuation never
// runs once the grain stops, so its sender would wait out its whole
// timeout. A dead letter is what the router's requestMoving sends again
// after dropping the cached PID, to wherever the session lives now.
func (g *grain) answerPending(ctx actor.Context) {
	for sender := range g.pending {
		ctx.Send(sender, &actor.DeadLetterResponse{Target: ctx.Self()})
	}
	g.pending = nil
}

// local asks the registry and answers sender with the reply in protobuf,
// without holding the mailbox meanwhile.
func (g *grain) local(ctx actor.Context, sender *actor.PID, msg any) {
	answer := g.wait(ctx, sender)
	f := ctx.RequestFuture(g.registry, msg, localTimeout)
	ctx.ReenterAfter(f, func(res any, err error) {
		if err != nil {
			answer(&clusterpb.Reply{RouteFailed: errorToPB(err)})
			return
		}
		answer(replyToPB(res))
	})
}

// subscribe relays the session's events to the requesting member's relay
// through one of this member's (session.Events are Go structs; only
// protobuf crosses).
func (g *grain) subscribe(ctx actor.Context, sender *actor.PID, id string, s *clusterpb.Subscribe) {
	target := pidFromPB(s.Target)
	if target == nil {
		ctx.Send(sender, &clusterpb.Reply{RouteFailed: errorToPB(errNoTarget)})
		return
	}
	out := ctx.SpawnPrefix(actor.PropsFromProducer(func() actor.Actor { return &relayOut{target: target} }), "relay-out")
	msg := &session.Subscribe{From: s.From, LiveOnly: s.LiveOnly, Weak: s.Weak, Target: out}
	answer := g.wait(ctx, sender)
	f := ctx.RequestFuture(g.registry, &sessions.Route{ID: id, Msg: msg}, localTimeout)
	ctx.ReenterAfter(f, func(res any, err error) {
		if err != nil {
			ctx.Stop(out)
			answer(&clusterpb.Reply{RouteFailed: errorToPB(err)})
			return
		}
		reply := replyToPB(res)
		if sub, ok := reply.Body.(*clusterpb.Reply_Subscribed); ok && reply.Error == nil {
			sub.Subscribed.Relay = pidToPB(out)
		} else {
			ctx.Stop(out)
		}
		answer(reply)
	})
}

// offDone carries an off-mailbox answer back to the grain's mailbox.
type offDone struct{ reply *clusterpb.Reply }

// offMailbox runs fn (the member's store work) in a goroutine bounded by
// localTimeout and answers sender from the mailbox.
func (g *grain) offMailbox(ctx actor.Context, sender *actor.PID, fn func(context.Context) *clusterpb.Reply) {
	sys := ctx.ActorSystem()
	f := actor.NewFuture(sys, localTimeout)
	go func() {
		c, cancel := context.WithTimeout(context.Background(), localTimeout)
		defer cancel()
		sys.Root.Send(f.PID(), &offDone{reply: fn(c)})
	}()
	answer := g.wait(ctx, sender)
	ctx.ReenterAfter(f, func(res any, err error) {
		d, ok := res.(*offDone)
		if err != nil || !ok {
			answer(&clusterpb.Reply{RouteFailed: errorToPB(fmt.Errorf("cluster: the member's store did not answer: %v", err))})
			return
		}
		answer(d.reply)
	})
}
