package acp

import (
	"encoding/json"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/troupehq/troupe/actors/sessions"
)

// sessionClose cancels the running run and stops the session (it goes
// cold, its state in the store). The caller is detached; every other
// attached client hears hydra-acp/session/closed.
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
	if a := c.att[p.SessionID]; a != nil {
		a.leave(c)
		delete(c.att, a.id)
	}
	sid := p.SessionID
	// A slash command cut by the close is abandoned, not cancelled.
	c.cfg.Pipeline.SessionClosing(sid)
	done := func(err error) {
		if err == nil && remove {
			c.cfg.Pipeline.SessionGone(sid)
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
