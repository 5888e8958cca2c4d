package acp

import (
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/overrides"
)

// A fork's own log starts empty: its conversation up to the fork point is
// its ancestors'. A client attaching with the whole history is shown that
// inherited part first, as the ancestors' clients were shown it (their
// response chains' decisions applied), then the fork's own. Only the
// conversation is shown of it — chunks, tool calls, permission answers,
// turn ends: the ancestors' titles, modes and usage are not the fork's.
//
// Every inherited update is anchored on the fork's first event
// (session.created): after_message from any of them replays the fork's
// own history, which is what a client that was shown them lacks.

// showsInherited reports an attachment whose replay starts with the
// inherited conversation: a fork's, replayed whole (or from a message-id
// anchor, which falls back to whole when the fork's own log lacks it).
func (o attachOptions) showsInherited(m sessions.Meta) bool {
	if m.ParentID == "" || m.ForkedFromSeq <= 0 {
		return false
	}
	switch o.policy {
	case policyFull:
		return true
	case policyAfter:
		_, isID := acpupdate.ParseID(o.anchor)
		return !isID
	}
	return false
}

// inheritedAnchor anchors every inherited update: the fork's
// session.created, before any update of its own.
const inheritedAnchor int64 = 1

// inheritedUpdates projects a fork's inherited events
// (sessions.Client.InheritedShown: each ancestor's part, then the
// decisions its log recorded on it past the fork point) into the updates
// replayed to a client of fork id, coalesced as a replay is.
func inheritedUpdates(id string, models sessions.Models, evs []event.Event) []replayed {
	// The decisions first: they follow the events they decide. Seqs are
	// each ancestor's own, so they are kept by session.
	decided := map[string]overrides.Map{}
	for _, e := range evs {
		m := decided[e.SessionID]
		if m.Fold(e) {
			decided[e.SessionID] = m
		}
	}
	mapper := acpupdate.NewMapper(id, models)
	var out []replayed
	for _, e := range evs {
		if e.Kind == event.UpdateTransformed {
			continue
		}
		us := mapper.Apply(e)
		if d, ok := decided[e.SessionID][e.Seq]; ok && overrides.AgentKind(e.Kind) {
			us = nil
			if !d.Dropped {
				us = []any{shown(d)}
			}
		}
		for _, u := range us {
			if u = conversational(u); u == nil {
				continue
			}
			anchor := acpupdate.EventID(inheritedAnchor)
			acpupdate.SetID(u, anchor)
			p := &updateParams{SessionID: id, Update: u,
				Meta: &updateMeta{Hydra: stamp{MessageID: anchor, RecordedAt: e.RecordedAt.UnixMilli()}}}
			out = append(out, replayed{at: e.RecordedAt, params: p})
		}
	}
	return coalesce(out)
}

// conversational is u as an inherited replay shows it, or nil when it is
// not part of the conversation. A user chunk is the prompt's only showing
// (prompt_received is not replayed), so it is not marked as its twin.
func conversational(u any) any {
	switch v := u.(type) {
	case *acpupdate.Chunk:
		v.Meta = nil
		return v
	case *acpupdate.ToolCall, *acpupdate.TurnComplete, *acpupdate.PermissionResolved:
		return u
	case *acpupdate.PromptReceived, *acpupdate.Info, *acpupdate.Usage, *acpupdate.Mode, *acpupdate.Config, *acpupdate.Compaction, *acpupdate.Retry:
		return nil
	}
	// A response chain's rewrite of an agent update: shown as decided.
	return u
}
