package acp

import (
	"math"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
)

// replay takes the history a first subscription brings, up to the
// subscription's replay point, coalesced; then the method is answered.
// An instant replay whose start is known (full, or an update id anchor)
// streams: each batch the subscription brings is coalesced and sent at
// once, so the first update never waits for the whole history. Otherwise
// (drip, a message-id anchor found only on the way) it is collected and
// sent at the end. State updates (acpupdate.State) are not replayed: the
// latest of each closes the history, as the session's state now.
type replay struct {
	session string
	opts    attachOptions
	updates []replayed // in log order: the window being coalesced, or all when collecting
	sent    int
	// streaming: windows go out as they are projected.
	streaming bool
	// unsettled are the last updates of tool calls not finished yet, held
	// back from the windows sent, so that each call still shows only its
	// last update: a newer one replaces it, and what is left goes out
	// with the last window.
	unsettled []replayed
	sentTo    acpupdate.Position // the latest update streamed
	sentToID  string
	// anchors resolve after_message ids that are not update ids: a
	// prompt's to after its prompt_received (before it started, after it
	// was queued), an assistant message's to after it ended.
	anchors map[string]acpupdate.Position
	ending  bool          // sent or dripping; live events wait in held
	held    []event.Event // live events that came while dripping
}

type replayed struct {
	pos    acpupdate.Position
	at     time.Time
	params *updateParams
	// text is a streamed chunk's text, joined as its deltas come (set
	// into the chunk when the window goes out); joined is where the last
	// delta joined stands, joinedID its id.
	text     []byte
	joined   acpupdate.Position
	joinedID string
}

// addChunk takes one text or thinking delta of a streamed replay: it
// extends the chunk just before it when that is the same message's,
// without an update of its own (what coalesce would make of it anyway).
func (r *replay) addChunk(e event.Event, kind string, d *event.MessageDeltaPayload) {
	pos := acpupdate.Position{Seq: e.Seq}
	if r.skips(pos) {
		return
	}
	id := acpupdate.EventID(e.Seq) // a delta shows one update
	if n := len(r.updates); n > 0 {
		u := &r.updates[n-1]
		if c, ok := u.params.Update.(*acpupdate.Chunk); ok && u.text != nil && c.SessionUpdate == kind && c.Meta.ACPMessage() == d.MessageID {
			u.text = append(u.text, d.Text...)
			u.joined, u.joinedID = pos, id
			return
		}
	}
	c := &acpupdate.Chunk{SessionUpdate: kind, Content: acpupdate.ContentBlock{Type: "text"}, MessageID: id, Meta: acpupdate.MessageMeta(d.MessageID)}
	p := &updateParams{SessionID: r.session, Update: c, Meta: &updateMeta{Hydra: stamp{MessageID: id, RecordedAt: e.RecordedAt.UnixMilli()}}}
	r.updates = append(r.updates, replayed{pos: pos, at: e.RecordedAt, params: p, text: append(make([]byte, 0, 256), d.Text...), joined: pos, joinedID: id})
}

// settle sets the text of the chunks addChunk joined, each with the id of
// the last delta it holds.
func settle(ups []replayed) {
	for i := range ups {
		u := &ups[i]
		if u.text == nil {
			continue
		}
		u.params.Update.(*acpupdate.Chunk).Content.Text = string(u.text)
		if u.joined.Compare(u.pos) > 0 {
			reanchor(u.params, u.joinedID)
			u.pos = u.joined
		}
		u.text = nil
	}
}

// maxDripGap bounds one pause of a drip replay.
const maxDripGap = 2 * time.Second

// dripTick sends a drip replay's next update.
type dripTick struct{ session string }

func newReplay(session string, o attachOptions) *replay {
	r := &replay{session: session, opts: o, anchors: map[string]acpupdate.Position{}}
	switch o.policy {
	case policyAfter:
		_, isID := acpupdate.ParseID(o.anchor)
		r.streaming = isID && !o.drip
	default:
		r.streaming = !o.drip
	}
	return r
}

// flushWindow sends the window's updates, coalesced, with the unsettled
// ones of earlier windows before them (they are older); at the end
// (last) nothing is held back.
func (a *attachment) flushWindow(c *conn, ctx actor.Context, last bool) {
	r := a.replay
	// A fork's inherited conversation comes before anything of its own.
	for _, u := range r.opts.inherited {
		c.notify(ctx, "session/update", u.params)
		r.sent++
	}
	r.opts.inherited = nil
	if len(r.updates) == 0 && (!last || len(r.unsettled) == 0) {
		return
	}
	settle(r.updates)
	ups := append(r.unsettled, r.updates...)
	r.unsettled = nil
	clear(r.updates)
	r.updates = r.updates[:0]
	for _, u := range coalesce(ups) {
		if !last && unsettled(u) {
			r.unsettled = append(r.unsettled, u)
			continue
		}
		if u.pos.Compare(r.sentTo) < 0 {
			// Held back past later updates: it is the call's state as of
			// the last one sent, and anchored there, so that anchors
			// never go back.
			reanchor(u.params, r.sentToID)
		} else {
			r.sentTo, r.sentToID = u.pos, u.params.Meta.Hydra.MessageID
		}
		c.notify(ctx, "session/update", u.params)
		r.sent++
	}
}

// unsettled reports a tool call's update that a later one may replace.
func unsettled(u replayed) bool {
	v, ok := u.params.Update.(*acpupdate.ToolCall)
	return ok && v.SessionUpdate == "tool_call_update" && v.Status != "completed" && v.Status != "failed"
}

// add takes one update of the history, standing at pos, unless the
// policy will not send it (none, pending_only, or up to an update id
// anchor).
func (r *replay) add(pos acpupdate.Position, at time.Time, p *updateParams) {
	if r.skips(pos) {
		return
	}
	r.updates = append(r.updates, replayed{pos: pos, at: at, params: p})
}

// coalesce joins consecutive chunks of one message and keeps only each
// tool call's last update (each carries the call's whole state; the
// tool_call that opened it stays). A joined chunk takes the id of the last
// chunk it holds: after_message from it replays nothing it showed.
func coalesce(ups []replayed) []replayed {
	out := make([]replayed, 0, len(ups))
	lastCall := map[string]int{}
	lastChunk := -1
	var text []byte // the text of the chunk at lastChunk, joined
	var joined *replayed
	endChunk := func() {
		if lastChunk >= 0 {
			p := out[lastChunk].params
			p.Update.(*acpupdate.Chunk).Content.Text = string(text)
			if joined != nil {
				reanchor(p, joined.params.Meta.Hydra.MessageID)
				out[lastChunk].pos = joined.pos
			}
		}
		lastChunk, text, joined = -1, text[:0], nil
	}
	for i, u := range ups {
		switch v := u.params.Update.(type) {
		case *acpupdate.Chunk:
			if lastChunk >= 0 {
				prev := out[lastChunk].params.Update.(*acpupdate.Chunk)
				if prev.SessionUpdate == v.SessionUpdate && prev.Meta.ACPMessage() == v.Meta.ACPMessage() && prev.Content.Type == "text" && v.Content.Type == "text" {
					text = append(text, v.Content.Text...)
					joined = &ups[i]
					continue
				}
			}
			endChunk()
			out = append(out, u)
			lastChunk = len(out) - 1
			text = append(text, v.Content.Text...)
			continue
		case *acpupdate.ToolCall:
			if v.SessionUpdate == "tool_call_update" {
				if i, ok := lastCall[v.ToolCallID]; ok {
					out[i].params = nil
				}
				lastCall[v.ToolCallID] = len(out)
			}
		}
		endChunk()
		out = append(out, u)
	}
	endChunk()
	kept := out[:0]
	for _, u := range out {
		if u.params != nil {
			kept = append(kept, u)
		}
	}
	return kept
}

// skips reports an update the policy will not send.
func (r *replay) skips(pos acpupdate.Position) bool {
	switch r.opts.policy {
	case policyNone, policyPendingOnly:
		return true
	case policyAfter:
		if after, ok := acpupdate.ParseID(r.opts.anchor); ok && pos.Compare(after) <= 0 {
			return true
		}
	}
	return false
}

// anchor records that after_message id resumes after the event at seq.
func (r *replay) anchor(id string, seq int64) {
	if id != "" {
		r.anchors[id] = acpupdate.Position{Seq: seq, Index: math.MaxInt}
	}
}

// selected is the history the policy sends, and the policy applied: an
// unknown after_message anchor falls back to full, and says so.
func (r *replay) selected() ([]replayed, string) {
	policy := r.opts.policy
	var after acpupdate.Position // before everything
	switch policy {
	case policyNone, policyPendingOnly:
		return nil, policy
	case policyAfter:
		pos, ok := acpupdate.ParseID(r.opts.anchor)
		if !ok {
			pos, ok = r.anchors[r.opts.anchor]
		}
		if !ok {
			policy = policyFull
		}
		after = pos
	}
	// The first update past after (an update at after itself counts as before).
	i, _ := slices.BinarySearchFunc(r.updates, after, func(u replayed, p acpupdate.Position) int {
		if c := u.pos.Compare(p); c > 0 {
			return 1
		}
		return -1
	})
	return coalesce(r.updates[i:]), policy
}

// snapshot is the session's state as the replay closes with it: its
// title, then the latest of each state update the history showed (the
// compaction only while one is under way). None for policy none.
func (a *attachment) snapshot() []*updateParams {
	r := a.replay
	if r.opts.policy == policyNone {
		return nil
	}
	var out []*updateParams
	if a.view.Title != "" {
		out = append(out, &updateParams{SessionID: a.id, Update: &acpupdate.Info{SessionUpdate: "session_info_update", Title: a.view.Title}})
	}
	for _, kind := range []string{"current_mode_update", "config_option_update", "usage_update", "hydra_compaction"} {
		p := a.states[kind]
		if p == nil || (kind == "hydra_compaction" && a.view.Compaction == nil) {
			continue
		}
		out = append(out, &updateParams{SessionID: a.id, Update: p.Update})
	}
	return out
}

// endReplay sends the history (at once, or dripped), then answers.
func (a *attachment) endReplay(c *conn, ctx actor.Context) {
	r := a.replay
	if r == nil || r.ending {
		return
	}
	r.ending = true
	state := a.snapshot()
	if r.streaming {
		a.flushWindow(c, ctx, true)
		for _, p := range state {
			c.notify(ctx, "session/update", p)
		}
		a.answer(c, ctx, r.sent+len(state), r.opts.policy)
		return
	}
	ups, policy := r.selected()
	if policy == policyFull && len(r.opts.inherited) > 0 {
		// A fork's inherited conversation comes before its own.
		ups = append(r.opts.inherited, ups...)
	}
	r.opts.inherited = nil
	var at time.Time // the state goes out right after the history, also dripped
	if n := len(ups); n > 0 {
		at = ups[n-1].at
	}
	for _, p := range state {
		ups = append(ups, replayed{at: at, params: p})
	}
	r.sent = len(ups)
	if !r.opts.drip || len(ups) == 0 {
		for _, u := range ups {
			c.notify(ctx, "session/update", u.params)
		}
		a.answer(c, ctx, len(ups), policy)
		return
	}
	a.dripQ = ups
	r.opts.policy = policy
	a.drip(c, ctx)
}

// drip sends the next dripped update and schedules the one after, spaced
// as they were recorded (divided by the speed).
func (a *attachment) drip(c *conn, ctx actor.Context) {
	if len(a.dripQ) == 0 || a.replay == nil {
		return
	}
	u := a.dripQ[0]
	a.dripQ = a.dripQ[1:]
	c.notify(ctx, "session/update", u.params)
	a.replay.opts.speed = max(a.replay.opts.speed, 0.001)
	if len(a.dripQ) == 0 {
		a.answer(c, ctx, a.replay.sent, a.replay.opts.policy)
		return
	}
	gap := time.Duration(float64(a.dripQ[0].at.Sub(u.at)) / a.replay.opts.speed)
	gap = min(max(gap, 0), maxDripGap)
	self, root, id := ctx.Self(), ctx.ActorSystem().Root, a.id
	a.drips = time.AfterFunc(gap, func() { root.Send(self, &dripTick{session: id}) })
}

// answer ends the replay: the method's response, the permission requests
// still open re-issued to this client, the attention state, then the live
// events that waited.
func (a *attachment) answer(c *conn, ctx actor.Context, n int, policy string) {
	r := a.replay
	a.replay = nil
	r.opts.answer(a, n, policy)
	a.reissue(c, ctx)
	a.attention(c, ctx)
	a.onEvents(c, ctx, r.held)
}
