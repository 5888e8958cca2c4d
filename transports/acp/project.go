package acp

import (
	"bytes"
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/persistence/event"
	"github.com/troupehq/troupe/transports/acpupdate"
	"github.com/troupehq/troupe/transports/jsonrpc"
	"github.com/troupehq/troupe/transports/overrides"
	"github.com/troupehq/troupe/transports/projection"
)

// project folds one event into the attachment's view and shows it: as
// session/update (kept for the replay while history is replayed) and, live
// only, the hydra notifications, the prompt's answer, permission requests.
func (a *attachment) project(c *conn, ctx actor.Context, e event.Event) {
	live := a.replay == nil
	d, decided := a.decision(c, e)
	if live && e.Kind == event.MessageDelta && !decided {
		if b := a.frames.get(e.Seq); b != nil {
			// Another connection built this chunk's frame: it is sent as
			// is, and the delta need not be decoded (nothing here reads
			// the view's streamed text).
			a.view.Deltas = false
			a.view.Apply(e)
			a.view.Deltas = true
			c.sendRaw(b)
			return
		}
	}
	ch := a.view.Apply(e)
	out := &eventUpdates{e: e}
	emit := out.emit
	// agent shows the event's agent update as the response chain decided.
	agent := emit
	if decided {
		agent = func(any) {
			if !d.Dropped {
				emit(shown(d))
			}
		}
	}
	switch p := ch.Payload.(type) {
	case nil:
		if dp := ch.Delta; dp != nil {
			if (dp.Channel == event.ChannelText || dp.Channel == event.ChannelThinking) && !decided {
				if live {
					c.sendRaw(a.chunkFrame(dp, e))
					return
				}
				if a.replay.streaming {
					a.replay.addChunk(e, acpupdate.ChunkKind(dp.Channel), dp)
					return
				}
			}
			a.delta(dp, agent)
		}
	case *event.MessageCompletedPayload:
		if !live {
			a.replay.anchor(p.MessageID, e.Seq)
		}
	case *event.HistoryImportedPayload:
		emitAll(acpupdate.Imported(p), emit)
	case *event.PromptQueuedPayload:
		if !live {
			a.replay.anchor(p.MessageID, e.Seq)
			return
		}
		a.queued(c, ctx, p, e)
	case *event.PromptChangedPayload:
		if live {
			a.promptChanged(c, ctx, e, p)
		}
	case *event.CreatedPayload:
		if e.SessionID == a.id {
			a.info.created = p
		}
	case *event.RunStartedPayload:
		a.info.turnStartedAt = e.RecordedAt.UnixMilli()
		a.runStarted(c, ctx, ch, p, live, out)
	case *event.PromptDeliveredPayload:
		if ch.Delivered != nil {
			// Live, the prompt was shown as it was queued.
			emitAll(acpupdate.UserChunks(ch.Delivered), out.only(!live))
		}
	case *event.ToolStartedPayload, *event.ToolProgressPayload, *event.ToolCompletedPayload:
		a.toolUpdate(ch.Call, agent)
	case *event.UpdateTransformedPayload:
		if a.overrides == nil {
			a.overrides = overrides.Map{}
		}
		overrides.FromPayload(p, func(s int64, d overrides.Decision) { a.overrides[s] = d })
	case *event.PermissionRequestedPayload:
		// The call shows as pending since tool.started; the request goes
		// to the client itself.
		a.raised[p.ToolCallID] = e.RecordedAt.UnixMilli()
		if live {
			a.askPermission(c, ctx, ch.Call)
			a.attention(c, ctx)
		}
	case *event.PermissionResolvedPayload:
		a.toolUpdate(ch.Call, emit)
		a.resolved(c, ctx, p, live, out)
	case *event.StepEndedPayload:
		a.info.usage = acpupdate.UsageOf(c.cfg.Models, a.view, p)
		emit(a.info.usage)
	case *event.RunEndedPayload:
		a.turnEnds[p.RunID], a.lastTurn = e.Seq, p.RunID
		if len(a.view.Runs) == 0 {
			a.info.turnStartedAt = 0
		}
		a.runEnded(c, ctx, p, live, out)
	case *event.Settings:
		a.settings(c, p, emit)
	case *event.CompactionPayload:
		emit(acpupdate.CompactionOf(e, p, a.view.Title))
	case *event.RetryPayload:
		emit(acpupdate.RetryOf(e, p))
	case *event.PlanPayload:
		emit(acpupdate.Plan(p))
	case *event.AttentionPayload:
		if e.SessionID == a.id {
			a.flags = p.Apply(a.flags, e.RecordedAt.UnixMilli())
			if live {
				a.attention(c, ctx)
			}
		}
	}
	a.show(c, ctx, out)
}

// chunkFrame is a live text or thinking delta's session/update, built by
// hand and offered to the session's other connections.
func (a *attachment) chunkFrame(d *event.MessageDeltaPayload, e event.Event) []byte {
	b := appendChunkFrame(make([]byte, 0, 192+len(d.Text)), a.id, acpupdate.ChunkKind(d.Channel), d.Text, d.MessageID, e.Seq, e.RecordedAt.UnixMilli())
	a.frames.put(e.Seq, b)
	return b
}

// eventUpdates are the updates one event shows, in order: all of them,
// also those this client is not shown (its own prompt's prompt_received,
// say), since an update's id counts them all.
type eventUpdates struct {
	e     event.Event
	us    []any
	shown []bool
}

func (o *eventUpdates) emit(u any) { o.add(u, true) }

func (o *eventUpdates) add(u any, shown bool) {
	o.us = append(o.us, u)
	o.shown = append(o.shown, shown)
}

// only emits when shown, else counts the update as not shown.
func (o *eventUpdates) only(shown bool) func(any) {
	return func(u any) { o.add(u, shown) }
}

// show sends (live) or keeps for the replay the updates of the event
// this client is shown, each with its id; once all are in (what follows
// from them, an attention update say, goes out after them).
func (a *attachment) show(c *conn, ctx actor.Context, out *eventUpdates) {
	if len(out.us) == 0 {
		return
	}
	e := out.e
	us, shown := acpupdate.Stamp(e.Seq, out.us), out.shown
	out.us, out.shown = nil, nil
	at := e.RecordedAt.UnixMilli()
	index := 0
	for i, u := range us {
		kind, id := acpupdate.Describe(u)
		state := acpupdate.State(kind)
		pos := acpupdate.Position{Seq: e.Seq, Index: index}
		if !state {
			index++
		}
		if !shown[i] {
			continue
		}
		if state || id == "" {
			id = acpupdate.EventID(e.Seq)
		}
		p := &updateParams{SessionID: a.id, Update: u, Meta: &updateMeta{Hydra: stamp{MessageID: id, RecordedAt: at}}}
		if state {
			if a.states == nil {
				a.states = map[string]*updateParams{}
			}
			a.states[kind] = p
		}
		switch {
		case a.replay == nil:
			c.notify(ctx, "session/update", p)
		case state:
			// A replay shows the latest of each kind at its end.
		default:
			a.replay.add(pos, e.RecordedAt, p)
		}
	}
}

func emitAll(us []any, emit func(any)) {
	for _, u := range us {
		emit(u)
	}
}

func (a *attachment) delta(d *event.MessageDeltaPayload, emit func(any)) {
	if u := acpupdate.Delta(a.shown, d); u != nil {
		emit(u)
	}
}

// toolUpdate shows a call's whole current state: tool_call the first time,
// tool_call_update after.
func (a *attachment) toolUpdate(call *projection.ToolCall, emit func(any)) {
	if u := acpupdate.Tool(a.shown, call); u != nil {
		emit(u)
	}
}

// shown is the value an attachment emits for a rewritten update: a chunk
// when it reads as exactly one (so replay joins it with its neighbours),
// else the object as given.
func shown(d overrides.Decision) any {
	var c acpupdate.Chunk
	dec := json.NewDecoder(bytes.NewReader(d.Update))
	dec.DisallowUnknownFields()
	if dec.Decode(&c) == nil && (c.SessionUpdate == "agent_message_chunk" || c.SessionUpdate == "agent_thought_chunk") && c.Content.Type == "text" {
		return &c
	}
	return d.Update
}

// decision is the response chain's verdict on e's agent update: from the
// log (update.transformed) or from the session's gate.
func (a *attachment) decision(c *conn, e event.Event) (overrides.Decision, bool) {
	if !overrides.AgentKind(e.Kind) {
		return overrides.Decision{}, false
	}
	if d, ok := a.overrides[e.Seq]; ok {
		return d, true
	}
	return c.cfg.Pipeline.Decision(a.id, e.Seq)
}

// runStarted shows the prompt's user chunks (marked as repeating it) and
// its prompt_received, as Hydra records them: on replay, and live to the
// clients that did not send it.
func (a *attachment) runStarted(c *conn, ctx actor.Context, ch projection.Change, p *event.RunStartedPayload, live bool, out *eventUpdates) {
	if !live {
		// after_message a prompt's id resumes after its prompt_received.
		a.replay.anchor(p.RunID, ch.Event.Seq)
	} else {
		c.notify(ctx, "hydra-acp/prompt_queue/removed", queueRemoved{SessionID: a.id, MessageID: p.RunID, Reason: "started"})
	}
	if ch.Delivered == nil {
		return
	}
	_, mine := a.prompts[p.RunID]
	emitAll(acpupdate.CompatChunks(ch.Delivered), out.only(!live || !mine))
	r := acpupdate.Received(p.RunID, ch.Delivered)
	if r.SentBy != nil {
		// Who sent it, as its client introduced itself (while attached).
		o := c.originatorOf(a.id, r.SentBy.ClientID)
		r.SentBy.Name, r.SentBy.Version = o.Name, o.Version
	}
	out.add(r, !live || !mine)
}

func (a *attachment) runEnded(c *conn, ctx actor.Context, p *event.RunEndedPayload, live bool, out *eventUpdates) {
	if live {
		// A command whose run ended before it asked (cancelled at once).
		c.cfg.Pipeline.QueueLeft(a.id, p.RunID)
	}
	if req, mine := a.prompts[p.RunID]; mine && live {
		delete(a.prompts, p.RunID)
		switch {
		case req == nil:
			// An amend's prompt: no session/prompt waits on it.
		case p.StopReason == "error":
			c.fail(ctx, req, jsonrpc.NewErrorData(jsonrpc.CodeInternal, "the run failed: "+p.Error, map[string]any{"errorKind": p.ErrorKind, "retryable": p.Retryable}))
		default:
			c.reply(ctx, req, promptResult{StopReason: acpupdate.StopReason(p.StopReason)})
		}
		out.add(acpupdate.TurnEnded(p), false)
	} else {
		out.emit(acpupdate.TurnEnded(p))
	}
	a.show(c, ctx, out)
	if live {
		a.attention(c, ctx)
	}
	if then := a.runEnds[p.RunID]; then != nil {
		delete(a.runEnds, p.RunID)
		then()
	}
}

func (a *attachment) settings(c *conn, p *event.Settings, emit func(any)) {
	emitAll(acpupdate.SettingsChanged(c.cfg.Models, a.view.Settings, p), emit)
}
