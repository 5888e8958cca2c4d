package acp

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/persistence/event"
)

// maxUpdateQueue bounds the agent updates waiting for the response chain
// behind the one in it. Past it the chain is not keeping up with the
// agent: the waiting ones are let through unchanged (fail-open, logged),
// so a slow transformer costs its session's clients no more than this
// many updates' delay and the link no more memory.
const maxUpdateQueue = 4096

// pendingUpdate is one event's agent update, as the flat envelope the
// transformers get.
type pendingUpdate struct {
	seq int64
	env json.RawMessage
}

// observe folds e into the link's view and queues its agent update, if it
// makes one, for the response chain.
func (l *link) observe(ctx actor.Context, e event.Event) {
	ch := l.view.Apply(e)
	if !agentKind(e.Kind) {
		return
	}
	var u any
	switch {
	case ch.Delta != nil:
		u = deltaUpdate(l.shown, ch.Delta)
	case ch.Call != nil:
		if tu := toolUpdateOf(l.shown, ch.Call); tu != nil {
			u = tu
		}
	}
	if u == nil {
		return
	}
	if len(l.updates) >= maxUpdateQueue {
		actorlog.For(ctx, "chain_link", l.session).Warn("the response chain is behind: updates let through unchanged",
			"waiting", len(l.updates))
		l.updates = nil
		return
	}
	env, err := json.Marshal(updateParams{SessionID: l.session, Update: u})
	if err != nil {
		return
	}
	l.updates = append(l.updates, pendingUpdate{seq: e.Seq, env: env})
}

// pump starts the response chain of the oldest waiting update unless one
// runs, then releases what is decided.
func (l *link) pump(ctx actor.Context) {
	if l.current == nil && len(l.updates) > 0 {
		cur := l.updates[0]
		l.updates = l.updates[1:]
		if len(l.updates) == 0 {
			l.updates = nil // let the backing array go once drained
		}
		l.current = &cur
		l.key++
		s := chainSpec{pipeline: l.pipeline, sessions: l.sessions, session: l.session, method: "session/update", phase: "response",
			direction: "agent→client", envelope: cur.env, names: l.pipeline.chainOf(l.session), key: l.key}
		l.chains[s.key] = func(d chainDone) { l.decided(ctx, cur, d) }
		ctx.Spawn(chainProps(s))
	}
	l.publish(ctx)
}

// decided takes the chain's outcome on u. A rewrite or drop is recorded
// in the log (update.transformed) before any client is shown it, so a
// replay, even after a crash, shows what live clients saw; one that
// cannot be recorded is shown as recorded (fail-open).
func (l *link) decided(ctx actor.Context, u pendingUpdate, d chainDone) {
	next := func() {
		l.current = nil
		l.pump(ctx)
	}
	dec, changed := decisionOf(d, u.env)
	if !l.gated || !changed {
		next()
		return
	}
	draft, err := dec.draft(u.seq)
	if err != nil {
		actorlog.For(ctx, "chain_link", l.session).Warn("a transformed update not recorded", "seq", u.seq, "error", err)
		next()
		return
	}
	l.sessions.Async(ctx).Append(l.session, []event.Draft{draft}, func(_, _ int64, err error) {
		if err != nil {
			actorlog.For(ctx, "chain_link", l.session).Warn("a transformed update not recorded", "seq", u.seq, "error", err)
		} else {
			l.pipeline.gateMove(l.session, 0, u.seq, &dec)
		}
		next()
	})
}

// publish moves the gate up to the event before the first undecided
// update, and tells the watching connections.
func (l *link) publish(ctx actor.Context) {
	if !l.gated {
		return
	}
	rel := l.seen
	switch {
	case l.current != nil:
		rel = l.current.seq - 1
	case len(l.updates) > 0:
		rel = l.updates[0].seq - 1
	}
	if l.pipeline.gateMove(l.session, rel, 0, nil) {
		l.open(ctx.ActorSystem().Root)
	}
}

func (l *link) open(root *actor.RootContext) {
	for _, c := range l.pipeline.watching(l.session) {
		root.Send(c, &gateOpen{session: l.session})
	}
}
