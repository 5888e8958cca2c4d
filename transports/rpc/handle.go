package rpc

import (
	"context"
	"errors"

	"github.com/troupehq/troupe/actors/sessions"
	"github.com/troupehq/troupe/persistence/event"
)

const errStreaming = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."

func (c *conn) handleLine(line []byte) {
	cmd, bad := Decode(line)
	if bad != nil {
		c.respond(bad)
		return
	}
	if c.term {
		c.respond(Fail(cmd.ID, cmd.Type, "shutting down"))
		return
	}
	switch cmd.Type {
	case "prompt", "steer", "follow_up":
		c.prompt(cmd)
	case "abort":
		c.abort(cmd)
	case "new_session":
		c.newSession(cmd)
	case "switch_session":
		c.switchCmd(cmd)
	case "fork":
		c.fork(cmd)
	case "set_model", "cycle_model":
		c.setModel(cmd)
	case "set_thinking_level", "cycle_thinking_level":
		c.setThinking(cmd)
	case "set_steering_mode":
		c.settings(cmd, event.Settings{SteeringMode: &cmd.Mode}, nil)
	case "set_follow_up_mode":
		c.settings(cmd, event.Settings{FollowUpMode: &cmd.Mode}, nil)
	case "set_auto_compaction":
		c.settings(cmd, event.Settings{AutoCompaction: &cmd.Enabled}, nil)
	case "set_auto_retry":
		c.settings(cmd, event.Settings{AutoRetry: &cmd.Enabled}, nil)
	case "set_session_name":
		if cmd.Name == "" {
			c.respond(Fail(cmd.ID, cmd.Type, "Session name cannot be empty"))
			return
		}
		c.settings(cmd, event.Settings{Title: &cmd.Name}, nil)
	case "compact":
		c.compact(cmd)
	case "abort_retry":
		c.abortRetry(cmd)
	case "bash":
		c.bash(cmd)
	case "abort_bash":
		if c.bashCancel != nil {
			c.bashCancel()
		}
		c.respond(OK(cmd.ID, cmd.Type, nil))
	case "export_html":
		c.exportHTML(cmd)
	default:
		c.respond(c.answer(cmd))
	}
}

func (c *conn) prompt(cmd Command) {
	delivery := event.DeliveryPrompt
	switch {
	case cmd.Type == "steer":
		delivery = event.DeliverySteer
	case cmd.Type == "follow_up":
		delivery = event.DeliveryFollowUp
	case c.streaming() && cmd.StreamingBehavior == "":
		c.respond(Fail(cmd.ID, cmd.Type, errStreaming))
		return
	case c.streaming() && cmd.StreamingBehavior == "steer":
		delivery = event.DeliverySteer
	case c.streaming():
		delivery = event.DeliveryFollowUp
	}
	id := c.newID()
	c.prompts[id] = &result{resp: OK(cmd.ID, cmd.Type, nil)}
	c.awaitingRun[id] = true
	s := c.cur
	content := blocks(cmd.Message, cmd.Images)
	c.spawn(func() *result {
		ctx := context.Background()
		fail := func(err error) *result {
			return &result{promptID: id, failed: true, resp: Fail(cmd.ID, cmd.Type, err.Error())}
		}
		if err := c.ready(ctx, s); err != nil {
			return fail(err)
		}
		if _, err := c.cfg.Sessions.Prompt(ctx, s.id, sessions.PromptRequest{MessageID: id, Content: content, Delivery: delivery, Client: "rpc"}); err != nil {
			return fail(err)
		}
		return &result{promptID: id}
	})
}

// abort answers after the run has settled; queued messages survive it.
func (c *conn) abort(cmd Command) {
	s := c.cur
	if c.bashCancel != nil {
		c.bashCancel()
	}
	ok := OK(cmd.ID, cmd.Type, nil)
	// A manual compaction holds the session's turn too: abort stops it
	// (pi's abort does not, issue #8920).
	if !c.streaming() && s.fold.Compaction == nil {
		c.respond(ok)
		return
	}
	c.spawn(func() *result {
		r, err := c.cfg.Sessions.Cancel(context.Background(), s.id, "aborted")
		if err != nil {
			return &result{resp: Fail(cmd.ID, cmd.Type, err.Error())}
		}
		if !r.Running {
			return &result{resp: ok}
		}
		return &result{resp: ok, waitRun: r.RunID}
	})
}

// settings records a settings change; the answer waits for its event.
func (c *conn) settings(cmd Command, set event.Settings, data any) {
	s := c.cur
	c.spawn(func() *result {
		ctx := context.Background()
		if err := c.ready(ctx, s); err != nil {
			return &result{resp: Fail(cmd.ID, cmd.Type, err.Error())}
		}
		seq, err := c.cfg.Sessions.SetSettings(ctx, s.id, set)
		if err != nil {
			return &result{resp: Fail(cmd.ID, cmd.Type, err.Error())}
		}
		return &result{resp: OK(cmd.ID, cmd.Type, data), session: s.id, seq: seq}
	})
}

func (c *conn) setModel(cmd Command) {
	f := c.cur.fold
	provider, id := cmd.Provider, cmd.ModelID
	if cmd.Type == "cycle_model" {
		p, m := c.models.current(f.Settings)
		next, ok := c.models.next(p, m)
		if !ok {
			c.respond(OK(cmd.ID, cmd.Type, JSONNull))
			return
		}
		provider, id = next.Provider, next.ID
	} else if _, err := c.models.find(provider, id); err != nil {
		c.respond(Fail(cmd.ID, cmd.Type, err.Error()))
		return
	}
	obj, err := c.models.object(provider, id)
	if err != nil {
		c.respond(Fail(cmd.ID, cmd.Type, err.Error()))
		return
	}
	var data any = obj
	if cmd.Type == "cycle_model" {
		set := f.Settings
		set.Provider, set.Model = &provider, &id
		level := c.models.thinking(set, c.cfg.Thinking)
		data = map[string]any{"model": obj, "thinkingLevel": level, "isScoped": false}
	}
	c.settings(cmd, event.Settings{Provider: &provider, Model: &id}, data)
}

func (c *conn) setThinking(cmd Command) {
	f := c.cur.fold
	level := c.models.thinking(f.Settings, c.cfg.Thinking)
	p, id := c.models.current(f.Settings)
	var data any
	if cmd.Type == "cycle_thinking_level" {
		next, ok := c.models.cat.NextThinking(p, id, level)
		if !ok {
			c.respond(OK(cmd.ID, cmd.Type, JSONNull))
			return
		}
		level = next
		data = map[string]any{"level": level}
	} else {
		level = c.models.cat.ClampThinking(p, id, cmd.Level)
	}
	c.settings(cmd, event.Settings{ThinkingLevel: &level}, data)
}

func (c *conn) compact(cmd Command) {
	s := c.cur
	c.spawn(func() *result {
		ctx := context.Background()
		if err := c.ready(ctx, s); err != nil {
			return &result{resp: Fail(cmd.ID, cmd.Type, err.Error())}
		}
		r, err := c.cfg.Sessions.Compact(ctx, s.id, cmd.Instructions)
		var unreachable *sessions.UnreachableError
		switch {
		case errors.As(err, &unreachable):
			return &result{resp: Fail(cmd.ID, cmd.Type, err.Error())}
		case errors.Is(err, sessions.ErrBusy):
			return &result{resp: Fail(cmd.ID, cmd.Type, "Cannot compact while the agent is processing")}
		case err != nil:
			return &result{resp: Fail(cmd.ID, cmd.Type, "Compaction failed: "+err.Error())}
		}
		st, err := c.cfg.Sessions.State(ctx, s.id)
		if err != nil {
			return &result{resp: Fail(cmd.ID, cmd.Type, err.Error())}
		}
		return &result{resp: OK(cmd.ID, cmd.Type, compactResult(r.Summary, r.FirstKeptEntryID, int64(r.TokensBefore))), session: s.id, seq: st.LastSeq}
	})
}

func (c *conn) abortRetry(cmd Command) {
	s := c.cur
	if s.fold.Run() == nil {
		c.respond(OK(cmd.ID, cmd.Type, nil))
		return
	}
	c.spawn(func() *result {
		// No retry pending is not an error: the retry the host saw may
		// already have ended.
		_ = c.cfg.Sessions.AbortRetry(context.Background(), s.id)
		return &result{resp: OK(cmd.ID, cmd.Type, nil)}
	})
}
