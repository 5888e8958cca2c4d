package acp

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

// sessionClose cancels the running run and stops the session (it goes
// cold, its state in the store). The caller is detached (its prompts
// answered cancelled once the session stopped); every other attached
// client gets its prompt's answer, then hears hydra-acp/session/closed.
func (c *conn) sessionClose(ctx actor.Context, id, params json.RawMessage) {
	c.endSession(ctx, id, params, false)
}

// sessionDelete stops the session and removes it from the store.
func (c *conn) sessionDelete(ctx actor.Context, id, params json.RawMessage) {
	c.endSession(ctx, id, params, true)
}

func (c *conn) endSession(ctx actor.Context, id, params json.RawMessage, remove bool) {
	var p loadParams
	if !c.decodeParams(ctx, id, params, &p) {
		return
	}
	if !c.requireSession(ctx, id, p.SessionID) {
		return
	}
	closer := c.att[p.SessionID]
	if closer != nil {
		closer.leave(c)
		delete(c.att, closer.id)
	}
	sid := p.SessionID
	// A slash command cut by the close is abandoned, not cancelled.
	c.cfg.Pipeline.SessionClosing(sid)
	done := func(err error) {
		if err == nil && remove {
			c.cfg.Pipeline.SessionGone(sid)
			// Its queued prompts will never run: every client still
			// attached is told so.
			for _, pid := range c.cfg.Pipeline.Watching(sid) {
				ctx.Send(pid, &sessionDeleted{session: sid})
			}
		}
		if err == nil && closer != nil {
			// The caller left before its run's end could reach it: its
			// prompts are answered as the stop ended them.
			for msg, req := range closer.prompts {
				delete(closer.prompts, msg)
				if req != nil {
					c.reply(ctx, req, promptResult{StopReason: "cancelled"})
				}
			}
		}
		switch {
		case err != nil:
			c.answerErr(ctx, id, sid, err)
		case id != nil:
			c.reply(ctx, id, map[string]any{})
		}
	}
	c.async(ctx).Meta(sid, func(_ sessions.Meta, err error) {
		if err != nil {
			done(err)
			return
		}
		if remove {
			c.async(ctx).Delete(sid, done)
			return
		}
		c.async(ctx).Cancel(sid, "the session is closing", func(_ sessions.CancelResult, err error) {
			if err != nil {
				done(err)
				return
			}
			c.async(ctx).Kill(sid, done)
		})
	})
}

// sessionForceCancel is hydra-acp/session/force_cancel: the run is
// cancelled and the session stopped (a stuck turn ends), its state kept;
// the attachments stay and wake it with their next change. On a session
// attached here the stop waits for the cancelled run's end, so every
// client's prompt is answered first; otherwise it follows the cancel.
func (c *conn) sessionForceCancel(ctx actor.Context, id, params json.RawMessage) {
	var p loadParams
	if !c.decodeParams(ctx, id, params, &p) || !c.requireSession(ctx, id, p.SessionID) {
		return
	}
	sid := p.SessionID
	stop := func() {
		c.async(ctx).Kill(sid, func(err error) {
			switch {
			case err != nil:
				c.answerErr(ctx, id, sid, err)
			case id != nil:
				c.reply(ctx, id, map[string]any{"stopReason": "cancelled"})
			}
		})
	}
	c.async(ctx).Meta(sid, func(_ sessions.Meta, err error) {
		if err != nil {
			c.answerErr(ctx, id, sid, err)
			return
		}
		if a := c.att[sid]; a != nil {
			a.wake(c, ctx)
		}
		c.async(ctx).Cancel(sid, "force-cancelled by a client", func(r sessions.CancelResult, err error) {
			if err != nil {
				c.answerErr(ctx, id, sid, err)
				return
			}
			if a := c.att[sid]; a != nil && r.RunID != "" {
				a.onRunEnd(r.RunID, stop)
				return
			}
			stop()
		})
	})
}

// hydraSessionLoad is hydra-acp/session/load: the session is brought
// live (resurrected from the store) without attaching, so a process can
// attach to it after (hydra-acp/transformer/attach needs it live).
func (c *conn) hydraSessionLoad(ctx actor.Context, id, params json.RawMessage) {
	var p loadParams
	if !c.decodeParams(ctx, id, params, &p) || !c.requireSession(ctx, id, p.SessionID) {
		return
	}
	sid := p.SessionID
	c.async(ctx).Meta(sid, func(_ sessions.Meta, err error) {
		if err != nil {
			c.answerErr(ctx, id, sid, err)
			return
		}
		// Asking the session anything starts it.
		c.async(ctx).State(sid, func(_ sessions.State, err error) {
			switch {
			case err != nil:
				c.answerErr(ctx, id, sid, err)
			case id != nil:
				c.reply(ctx, id, map[string]any{"sessionId": sid, "_meta": map[string]any{"hydra-acp": map[string]any{"status": "warm"}}})
			}
		})
	})
}

// sessionDeleted tells a connection a session it is attached to was
// deleted.
type sessionDeleted struct{ session string }

// onSessionDeleted abandons the deleted session's queued prompts, as Hydra
// does when a session goes with prompts waiting: prompt_queue/removed
// {abandoned} for each, and its sender's session/prompt answered
// cancelled.
func (c *conn) onSessionDeleted(ctx actor.Context, m *sessionDeleted) {
	a := c.att[m.session]
	if a == nil {
		return
	}
	for _, p := range a.view.Pending.Entries() {
		if p.Delivery == event.DeliveryPrompt || p.Delivery == "" {
			c.notify(ctx, "hydra-acp/prompt_queue/removed", queueRemoved{SessionID: a.id, MessageID: p.MessageID, Reason: "abandoned"})
		}
		if req, mine := a.prompts[p.MessageID]; mine {
			delete(a.prompts, p.MessageID)
			if req != nil {
				c.reply(ctx, req, promptResult{StopReason: "cancelled"})
			}
		}
	}
}
