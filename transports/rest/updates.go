package rest

import (
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
)

// update is one ACP session/update a canonical event projects to: its
// sessionUpdate kind, the message it belongs to, and the update object
// (an acpupdate shape, or a rewrite the response chain recorded).
type update struct {
	kind      string
	messageID string
	body      any
}

// projector turns a session's events, read in order, into the
// session/update objects a client attached from the start would have seen:
// acpupdate's mapping, the one ACP replays, with the agent updates as the
// session's response chain decided (decisions, by session: a fork's
// inherited events are its ancestors').
type projector struct {
	m         *acpupdate.Mapper
	decisions *decisions
}

func newProjector(id string, models sessions.Models, d *decisions) *projector {
	if d == nil {
		d = newDecisions()
	}
	return &projector{m: acpupdate.NewMapper(id, models), decisions: d}
}

// project returns e's updates; nil for kinds no client is shown. A payload
// that does not decode is a corrupt log: it is shown as nothing rather than
// ending the read.
func (p *projector) project(e event.Event) []update {
	if p.decisions.held(e) {
		return nil
	}
	if d, ok := p.decisions.of(e); ok {
		return decided(d, e.Seq, p.canonical(e))
	}
	return p.canonical(e)
}

// skip folds e without showing it: a line written without the generic
// update (a text or thinking delta, see deltaLine) still moves the view.
func (p *projector) skip(e event.Event) {
	v := p.m.View
	v.Deltas = false
	v.Apply(e)
	v.Deltas = true
}

// canonical returns e's updates as recorded.
func (p *projector) canonical(e event.Event) []update {
	if e.Kind == event.UpdateTransformed {
		// Met while following: it decides an event written already (a
		// snapshot read them all first), so it counts from the next read on.
		p.decisions.fold(e)
		return nil
	}
	us := p.m.Apply(e)
	if len(us) == 0 {
		return nil
	}
	out := make([]update, len(us))
	for i, u := range us {
		kind, msg := acpupdate.Describe(u)
		out[i] = update{kind: kind, messageID: msg, body: u}
	}
	return out
}
