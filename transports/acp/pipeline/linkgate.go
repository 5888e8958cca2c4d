package pipeline

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/actorlog"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/overrides"
)

// maxUpdateQueue bounds the agent updates waiting for the response chain
// behind the one in it. Past it the chain is not keeping up with the
// agent: the waiting ones are let through unchanged (fail-open, logged),
// so a slow transformer costs its session's clients no more than this
// many updates' delay and the link no more memory.
const maxUpdateQueue = 4096

// maxJoined bounds how many waiting chunks one trip through the chain
// carries.
const maxJoined = 256

// updateEnvelope is the flat {sessionId, update} envelope of an agent
// update, as the response chain's transformers get it.
type updateEnvelope struct {
	SessionID string `json:"sessionId"`
	Update    any    `json:"update"`
}

// pendingUpdate is the agent update of the events from..seq (one event
// unless waiting chunks were joined), and the flat envelope the
// transformers get.
type pendingUpdate struct {
	from, seq int64
	prev      int64 // the last event before it that clients are shown anything of
	u         any
	env       json.RawMessage
}

// observe folds e into the link's view and queues its agent update, if it
// makes one, for the response chain.
func (l *link) observe(ctx actor.Context, e event.Event) {
	ch := l.view.Apply(e)
	if !overrides.AgentKind(e.Kind) {
		return
	}
	var u any
	switch {
	case ch.Delta != nil:
		u = acpupdate.Delta(l.shown, ch.Delta)
	case ch.Call != nil:
		if tu := acpupdate.Tool(l.shown, ch.Call); tu != nil {
			u = tu
		}
	}
	if u == nil {
		return
	}
	acpupdate.SetID(u, acpupdate.EventID(e.Seq)) // an agent event shows one update
	if len(l.updates) >= maxUpdateQueue {
		actorlog.For(ctx, "chain_link", l.session).Warn("the response chain is behind: updates let through unchanged",
			"waiting", len(l.updates))
		l.updates = nil
		return
	}
	l.updates = append(l.updates, pendingUpdate{from: e.Seq, seq: e.Seq, prev: l.visible, u: u})
}

// next takes the oldest waiting update. While the chain is behind, the
// chunks of one message waiting right after it, with nothing shown in
// between, join it: the transformers get them as one chunk (text
// accumulated from the intercepts is the same), and the chain keeps up
// with a burst instead of adding a round trip per delta.
func (l *link) next() (pendingUpdate, error) {
	cur := l.updates[0]
	n := 1
	if c, ok := cur.u.(*acpupdate.Chunk); ok && c.Content.Type == "text" {
		joined := *c
		for ; n < len(l.updates) && n < maxJoined; n++ {
			nx := l.updates[n]
			d, ok := nx.u.(*acpupdate.Chunk)
			if !ok || nx.prev != cur.seq || d.SessionUpdate != joined.SessionUpdate || d.Meta.ACPMessage() != joined.Meta.ACPMessage() || d.Content.Type != "text" {
				break
			}
			joined.Content.Text += d.Content.Text
			joined.MessageID = d.MessageID // the last it holds
			cur.seq = nx.seq
		}
		cur.u = &joined
	}
	l.updates = l.updates[n:]
	if len(l.updates) == 0 {
		l.updates = nil // let the backing array go once drained
	}
	var err error
	cur.env, err = json.Marshal(updateEnvelope{SessionID: l.session, Update: cur.u})
	return cur, err
}

// pump starts the response chain of the oldest waiting update unless one
// runs, then releases what is decided.
func (l *link) pump(ctx actor.Context) {
	for l.current == nil && len(l.updates) > 0 {
		cur, err := l.next()
		if err != nil {
			continue // unreadable: shown as recorded
		}
		l.current = &cur
		l.key++
		s := Spec{Pipeline: l.pipeline, Session: l.session, Method: "session/update", Phase: "response",
			Direction: "agent→client", Envelope: cur.env, Names: l.pipeline.ChainOf(l.session), Key: l.key}
		l.chains[s.Key] = func(d Done) { l.decided(ctx, cur, d) }
		ctx.SpawnPrefix(ChainProps(s), "chain")
	}
	l.publish(ctx)
}

// decided takes the chain's outcome on u. A rewrite or drop is recorded
// in the log (update.transformed) before any client is shown it, so a
// replay, even after a crash, shows what live clients saw; one that
// cannot be recorded is shown as recorded (fail-open).
func (l *link) decided(ctx actor.Context, u pendingUpdate, d Done) {
	next := func() {
		l.current = nil
		l.pump(ctx)
	}
	dec, changed := decisionOf(d, u.env)
	if !l.gated || !changed {
		next()
		return
	}
	draft, err := dec.Draft(u.from, u.seq)
	if err != nil {
		actorlog.For(ctx, "chain_link", l.session).Warn("a transformed update not recorded", "seq", u.seq, "error", err)
		next()
		return
	}
	l.sessions.Async(ctx).Append(l.session, []event.Draft{draft}, func(_ int64, err error) {
		if err != nil {
			actorlog.For(ctx, "chain_link", l.session).Warn("a transformed update not recorded", "seq", u.seq, "error", err)
		} else {
			l.pipeline.gateDecide(l.session, u.from, u.seq, dec)
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
		rel = l.current.from - 1
	case len(l.updates) > 0:
		rel = l.updates[0].from - 1
	}
	if l.pipeline.gateMove(l.session, rel) {
		l.open(ctx.ActorSystem().Root)
	}
}

func (l *link) open(root *actor.RootContext) {
	for _, c := range l.pipeline.Watching(l.session) {
		root.Send(c, &GateOpen{Session: l.session})
	}
}
