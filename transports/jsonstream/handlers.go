package jsonstream

import (
	"strings"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"

	"github.com/asynkron/protoactor-go/actor"
)

// client names this transport in the events it causes.
const client = "aionrs"

func (t *transport) onLine(ctx actor.Context, line []byte) {
	c, derr := Decode(line)
	if derr != nil {
		t.write(ctx, derr.Event())
		return
	}
	if t.closing {
		return
	}
	switch c.Type {
	case CmdMessage:
		t.message(ctx, c)
	case CmdStop:
		t.stop(ctx)
	case CmdToolApprove, CmdToolDeny:
		t.decide(ctx, c)
	case CmdInitHistory:
		t.initHistory(ctx, c)
	case CmdSetMode:
		t.setMode(ctx, c)
	case CmdPing:
		t.write(ctx, Pong{Type: "pong"})
	}
}

func (t *transport) message(ctx actor.Context, c Command) {
	if t.pending[c.MsgID] || t.proj.IsOpen(c.MsgID) {
		t.write(ctx, NewError(c.MsgID, CodeProtocol, "a message with msg_id "+c.MsgID+" is already in progress", false))
		return
	}
	text := c.Input
	if len(c.Files) > 0 {
		// As aionrs does: the model is told of the files by path and reads
		// them with its tools.
		text += "\n\n[Attached files]\n" + strings.Join(c.Files, "\n")
	}
	t.prompted = true
	t.pending[c.MsgID] = true
	req := sessions.PromptRequest{MessageID: c.MsgID, Content: []event.Block{{Type: "text", Text: text}}, Client: client}
	t.async(ctx).Prompt(t.cfg.SessionID, req, func(_ sessions.PromptResult, err error) {
		if err == nil || !t.reached(ctx, c.MsgID, "prompt", err) {
			return // stream_start comes with run.started
		}
		delete(t.pending, c.MsgID)
		t.write(ctx, NewError(c.MsgID, CodeProtocol, err.Error(), false))
		if t.closing {
			t.maybeFinish(ctx)
		}
	})
}

// stop aborts the running response; its stream_end follows from run.ended.
// Messages queued behind it still run, as they would after a normal end.
func (t *transport) stop(ctx actor.Context) {
	t.async(ctx).Cancel(t.cfg.SessionID, "stopped by the client", func(r sessions.CancelResult, err error) {
		if t.reached(ctx, "", "cancel", err) && err == nil && !r.Running {
			t.write(ctx, NewInfo("", "nothing to stop"))
		}
	})
}

func (t *transport) decide(ctx actor.Context, c Command) {
	d := sessions.Decision{ToolCallID: c.CallID, Allow: c.Type == CmdToolApprove, Always: c.Always, Reason: c.Reason, By: client}
	if d.Allow {
		d.OptionID = "allow_once"
		if c.Always {
			d.OptionID = "allow_always"
		}
	} else {
		d.OptionID = "reject_once"
	}
	t.async(ctx).Decide(t.cfg.SessionID, d, func(err error) {
		if err != nil && t.reached(ctx, "", "decide", err) {
			t.write(ctx, NewError("", CodeProtocol, c.Type+": "+err.Error(), false))
		}
	})
}

func (t *transport) initHistory(ctx actor.Context, c Command) {
	if t.prompted {
		t.write(ctx, NewError("", CodeProtocol, "init_history must come before the first message", false))
		return
	}
	h := event.HistoryImportedPayload{Source: "init_history", Messages: []event.HistoryMessage{{Role: "user", Content: c.Text}}}
	t.async(ctx).ImportHistory(t.cfg.SessionID, h, func(_ int64, err error) {
		if err != nil && t.reached(ctx, "", "init_history", err) {
			t.write(ctx, SessionError("", "init_history", err))
		}
	})
}

// setMode records the mode; config_changed is projected from the event.
func (t *transport) setMode(ctx actor.Context, c Command) {
	// A running response switches at once: its pending approvals are
	// reviewed under the new mode.
	t.async(ctx).SetMode(t.cfg.SessionID, c.Mode, func(_ int64, err error) {
		if err != nil && t.reached(ctx, "", "set_mode", err) {
			t.write(ctx, SessionError("", "set_mode", err))
		}
	})
}
