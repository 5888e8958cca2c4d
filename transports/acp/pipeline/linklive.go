package pipeline

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/actors/spawner"
)

// A session's link comes and goes with the session: Live starts it as the
// session comes live, and it ends with the session's subscription. When
// the session comes live again before the old link has ended (a wake
// right after a passivation, a restart), the old one hands over to a new
// one watching from the new incarnation's start (relive), unless the new
// incarnation answered the old link's own subscription.

// Live is told that a session came live in this daemon, whatever woke it,
// with its log's last seq then: a session with a chain gets its link (and
// gate), watching from the next seq. Called inside the session's Receive:
// it only takes the lock and spawns.
func (p *Pipeline) Live(system *actor.ActorSystem, s *sessions.Client, session string, lastSeq int64) {
	p.chains.mu.Lock()
	defer p.chains.mu.Unlock()
	if len(p.chains.names[session]) == 0 {
		return
	}
	if p.chains.links[session] != nil {
		p.chains.relive[session] = lastSeq + 1
	}
	p.ensureLinkLocked(system, s, session, lastSeq+1)
}

// linkSubscribed is told the seq the link's subscription replays to: an
// incarnation that came live at or before it answered it, and the link
// follows that one.
func (p *Pipeline) linkSubscribed(session string, replayTo int64) {
	p.chains.mu.Lock()
	defer p.chains.mu.Unlock()
	if from, ok := p.chains.relive[session]; ok && replayTo >= from-1 {
		delete(p.chains.relive, session)
	}
}

// EnsureLink starts session's link unless it runs, watching from seq from
// (0: from the live stream on, where it starts when the link subscribes).
func (p *Pipeline) EnsureLink(system *actor.ActorSystem, s *sessions.Client, session string, from int64) {
	p.chains.mu.Lock()
	defer p.chains.mu.Unlock()
	p.ensureLinkLocked(system, s, session, from)
}

// ensureLinkLocked is EnsureLink under chains.mu.
func (p *Pipeline) ensureLinkLocked(system *actor.ActorSystem, s *sessions.Client, session string, from int64) {
	if l := p.chains.links[session]; l != nil {
		// A transformer joined the chain of a session whose link runs: the
		// link releases what it has seen and gates the rest.
		if p.openGateLocked(session) {
			system.Root.Send(p.Links, &spawner.Tell{Name: session, Msg: &gateOpened{}})
		}
		return
	}
	if p.Links == nil {
		return // no tree to start it in: the chain fails open
	}
	// Before the link starts, so that it finds its gate; clients attaching
	// from now on hold what the link has not decided.
	opened := p.openGateLocked(session)
	if opened && from > 0 {
		// What came before from was shown before the gate; what follows
		// waits for the link.
		p.gateMove(session, from-1)
	}
	// Started without waiting for it, since this may run inside an actor
	// (a session coming live, a connection): the spawner starts it before
	// any Tell that follows, and the name is the session's, so the PID is
	// known now. The old link's name is free: dropLink runs once it is
	// stopped.
	system.Root.Send(p.Links, &spawner.Start{Props: linkProps(p, s, session, from), Name: session})
	p.chains.links[session] = spawner.Child(p.Links, session)
}

// dropLink forgets session's ended link. When the session came live again
// meanwhile, a new link takes over, gate and all; otherwise the gate
// closes, and dropLink reports whether there was one (its watchers then
// project what it held).
func (p *Pipeline) dropLink(system *actor.ActorSystem, s *sessions.Client, session string) bool {
	p.chains.mu.Lock()
	defer p.chains.mu.Unlock()
	delete(p.chains.links, session)
	if from, ok := p.chains.relive[session]; ok {
		delete(p.chains.relive, session)
		if len(p.chains.names[session]) > 0 {
			p.ensureLinkLocked(system, s, session, from)
			if p.chains.links[session] != nil {
				return false
			}
		}
	}
	gated := p.closeGateLocked(session)
	p.released.forget(session)
	return gated
}
