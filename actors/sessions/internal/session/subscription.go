package session

import (
	"cmp"
	"context"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/persistence"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/runtime/metrics"
)

// replayBatch is how many stored events go to a subscriber per message.
const replayBatch = 512

func (s *session) subscribe(ctx actor.Context, sender *actor.PID, m *Subscribe) {
	if m.Target == nil {
		s.reply(ctx, sender, &Subscribed{Err: errNoTarget})
		return
	}
	from := max(m.From, 1)
	if m.LiveOnly {
		from = s.committed + 1
	}
	// The subscription is registered in the same Receive that fixes
	// ReplayTo, so every later commit reaches it: no gap, no duplicate.
	sub := ctx.SpawnPrefix(actor.PropsFromProducer(func() actor.Actor {
		return &subscription{store: s.cfg.Store, sessionID: s.cfg.ID, target: m.Target, next: from, replayTo: s.committed}
	}), "subscription")
	s.subs[sub.Id] = sub
	if m.Weak {
		s.weak[sub.Id] = true
	}
	s.reply(ctx, sender, &Subscribed{Subscription: sub, ReplayTo: s.committed})
}

type subscriptionError string

func (e subscriptionError) Error() string { return string(e) }

const errNoTarget = subscriptionError("subscribe: no target to deliver events to")

// subscription delivers one subscriber's stream: history read from the store
// by a goroutine, then the live events the session sent meanwhile, then live
// events as they commit.
type subscription struct {
	store     *persistence.Store
	sessionID string
	target    *actor.PID

	next      int64 // the seq the target needs next
	replayTo  int64
	replaying bool
	held      []*Events // live events that arrived during replay
	cancel    context.CancelFunc
	reason    string
}

// subscriptionEnding tells a subscription why its session is about to stop
// it, for the Closed its subscriber hears; the PoisonPill sent after it
// ends it.
type subscriptionEnding struct{ reason string }

// endSubscriptions closes every subscription with reason before the
// session fails: a restart would stop them anyway, and their subscribers
// (a client's attachment) would hear no cause.
func (s *session) endSubscriptions(ctx actor.Context, reason string) {
	for id, pid := range s.subs {
		ctx.Send(pid, &subscriptionEnding{reason: reason})
		ctx.Poison(pid)
		delete(s.subs, id)
		delete(s.weak, id)
	}
}

type replayDone struct {
	next int64
	err  error
}

func (sub *subscription) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		ctx.Watch(sub.target)
		if sub.next <= sub.replayTo {
			sub.startReplay(ctx)
		}
	case *replayDone:
		sub.replaying = false
		if m.err != nil {
			actorlog.For(ctx, "session", sub.sessionID).Error("replay failed", "error", m.err)
			sub.reason = "replay failed: " + m.err.Error()
			ctx.Stop(ctx.Self())
			return
		}
		sub.next = m.next
		for _, ev := range sub.held {
			sub.deliver(ctx, ev)
		}
		sub.held = nil
	case *subscriptionEnding:
		sub.reason = m.reason
	case *Events:
		if sub.replaying {
			sub.held = append(sub.held, m)
			return
		}
		sub.deliver(ctx, m)
	case *actor.Terminated:
		if m.Who.Equal(sub.target) {
			ctx.Stop(ctx.Self())
		}
	case *actor.Stopping:
		if sub.cancel != nil {
			sub.cancel()
		}
		reason := cmp.Or(sub.reason, "unsubscribed")
		ctx.Send(sub.target, &Closed{SessionID: sub.sessionID, Reason: reason})
	default:
		actorlog.Unhandled(actorlog.For(ctx, "session", sub.sessionID), ctx)
	}
}

// startReplay reads [next, replayTo] off the mailbox. It sends to the target
// directly; the live events held meanwhile are sent only after replayDone,
// which the goroutine sends last, so the target sees them in order.
func (sub *subscription) startReplay(ctx actor.Context) {
	sub.replaying = true
	rctx, cancel := context.WithCancel(context.Background())
	sub.cancel = cancel
	self, target, root := ctx.Self(), sub.target, ctx.ActorSystem().Root
	store, id, from, to := sub.store, sub.sessionID, sub.next, sub.replayTo
	go func() {
		next := from
		batch := make([]event.Event, 0, replayBatch)
		flush := func() {
			if len(batch) > 0 {
				metrics.EventsReplayed.Add(float64(len(batch)))
				root.Send(target, &Events{SessionID: id, Events: batch})
				batch = make([]event.Event, 0, replayBatch)
			}
		}
		err := store.LoadRange(rctx, id, from, to, func(e event.Event) error {
			if e.Seq != next {
				// Events after a hole would reach a subscriber that waits
				// for the missing ones forever: the store lost them, say so.
				return fmt.Errorf("the store lacks events %d to %d of session %s", next, e.Seq-1, id)
			}
			batch = append(batch, e)
			next = e.Seq + 1
			if len(batch) == replayBatch {
				flush()
			}
			return nil
		})
		if err == nil && next <= to {
			err = fmt.Errorf("the store lacks events %d to %d of session %s", next, to, id)
		}
		flush()
		root.Send(self, &replayDone{next: next, err: err})
	}()
}

// deliver forwards the part of a live batch the target has not seen.
func (sub *subscription) deliver(ctx actor.Context, m *Events) {
	evs := m.Events
	for len(evs) > 0 && evs[0].Seq < sub.next {
		evs = evs[1:]
	}
	if len(evs) == 0 {
		return
	}
	sub.next = evs[len(evs)-1].Seq + 1
	if len(evs) != len(m.Events) {
		m = &Events{SessionID: m.SessionID, Events: evs}
	}
	ctx.Send(sub.target, m)
}
